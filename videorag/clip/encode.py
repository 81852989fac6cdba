"""The clip's re-encoding with PyAV (FFmpeg's libraries, already installed for decoding): the
source is read from the keyframe before the span, every frame inside [start, end) is encoded
again — video as H.264 (dimensions rounded down to even, as yuv420p needs), audio as AAC with
its samples cut at the span's edges — with times counted from the clip's start, so variable
frame rates keep their timing."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from .span import ClipError

MS = Fraction(1, 1000)  # the video's time base in the clip
SEEK_BACK = 1.0  # seconds read before the span: the decoder needs the keyframe before it


def cut(source, start: float, end: float, out, force: bool = False) -> Path:
    """Write `source`'s [start, end) to `out` (an .mp4 path); returns `out`."""
    out = Path(out)
    if out.suffix.lower() != ".mp4":
        raise ClipError(f"a clip is written as .mp4, not {out.name!r}", "name the output OUT.mp4")
    if out.exists() and not force:
        raise ClipError(f"{out} exists", "choose another name, or pass --force to replace it")
    if not out.parent.is_dir():
        raise ClipError(f"the folder {out.parent} does not exist", "create it first or write elsewhere")
    partial = out.with_name(f".{out.stem}.partial.mp4")
    try:
        with av.open(str(source)) as src, av.open(str(partial), "w") as dst:
            _recode(src, dst, start, end)
        partial.replace(out)
    except (av.FFmpegError, OSError) as exc:
        raise ClipError(f"cannot cut {source}: {exc}", "check that the file is still a readable video") from exc
    finally:
        partial.unlink(missing_ok=True)
    return out


def _recode(src, dst, start: float, end: float) -> None:
    if not src.streams.video:
        raise ClipError("the file has no video stream", "clip a video file")
    video_in, audio_in = src.streams.video[0], (src.streams.audio[0] if src.streams.audio else None)
    video = _video_stream(dst, video_in)
    audio = _Audio(dst, audio_in, start, end) if audio_in is not None else None
    src.seek(int(max(start - SEEK_BACK, 0.0) / av.time_base))
    streams = [s for s in (video_in, audio_in) if s is not None]
    done = {s.index: False for s in streams}  # each stream: read past the span
    for packet in src.demux(*streams):
        for frame in packet.decode():
            if packet.stream.index == video_in.index:
                done[video_in.index] = _video_frame(dst, video, frame, start, end)
            elif audio is not None:
                done[packet.stream.index] = audio.add(frame)
        if all(done.values()):
            break
    dst.mux(video.encode())
    if audio is not None:
        audio.finish()


def _video_stream(dst, video_in):
    rate = video_in.average_rate or video_in.guessed_rate or 30
    stream = dst.add_stream("libx264", rate=rate)
    stream.width, stream.height = video_in.codec_context.width // 2 * 2, video_in.codec_context.height // 2 * 2
    stream.pix_fmt, stream.time_base = "yuv420p", MS
    stream.codec_context.time_base = MS
    stream.options = {"preset": "veryfast", "crf": "20"}
    return stream


def _video_frame(dst, stream, frame, start: float, end: float) -> bool:
    """Encode `frame` when it lies in the span; True once the span is past."""
    t = frame.time
    if t is None or t < start - 1e-3:
        return False
    if t >= end - 1e-3:
        return True
    image = frame.reformat(width=stream.width, height=stream.height, format="yuv420p")
    image.pts, image.time_base = round((t - start) / MS), MS
    dst.mux(stream.encode(image))
    return False


class _Audio:
    """The audio track: samples inside the span, resampled for AAC and encoded in its frame size."""

    def __init__(self, dst, audio_in, start: float, end: float):
        layout = "stereo" if audio_in.codec_context.channels > 1 else "mono"
        self.rate = audio_in.codec_context.sample_rate or 48000
        self.stream = dst.add_stream("aac", rate=self.rate)
        self.stream.layout = layout
        self.dst, self.start, self.end = dst, start, end
        self.resampler = av.AudioResampler(format="fltp", layout=layout, rate=self.rate)
        self.fifo = av.AudioFifo()
        self.written = 0

    def add(self, frame) -> bool:
        """Take the part of `frame` inside the span; True once the span is past."""
        if frame.time is None:
            return False
        for chunk in self.resampler.resample(frame):
            t0 = chunk.time if chunk.time is not None else frame.time
            lo = max(0, round((self.start - t0) * self.rate))
            hi = min(chunk.samples, round((self.end - t0) * self.rate))
            if hi > lo:
                self._push(chunk.to_ndarray()[:, lo:hi], chunk.layout.name)
        return frame.time + frame.samples / (frame.sample_rate or self.rate) >= self.end

    def _push(self, samples: np.ndarray, layout: str) -> None:
        piece = av.AudioFrame.from_ndarray(np.ascontiguousarray(samples), format="fltp", layout=layout)
        piece.sample_rate, piece.pts, piece.time_base = self.rate, None, Fraction(1, self.rate)
        self.fifo.write(piece)
        size = self.stream.codec_context.frame_size or 1024
        while self.fifo.samples >= size:
            self._encode(self.fifo.read(size))

    def _encode(self, piece) -> None:
        piece.pts, piece.time_base = self.written, Fraction(1, self.rate)
        self.written += piece.samples
        self.dst.mux(self.stream.encode(piece))

    def finish(self) -> None:
        if self.fifo.samples:
            self._encode(self.fifo.read())
        self.dst.mux(self.stream.encode())
