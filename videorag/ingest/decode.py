"""Decoding with PyAV: probe a file and sample frames at a fixed rate.

Frame sampling picks its strategy per file: when keyframes are close together (≤ `KEYFRAME_GAP`
seconds) only keyframes are decoded; otherwise every reference frame is decoded with threading
and the ones between samples are dropped.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av

from ..errors import MediaError
from ..types import Frame

log = logging.getLogger(__name__)

KEYFRAME_GAP = 2.0  # seconds; at or below it, keyframes alone are dense enough
_PROBE_PACKETS = 600  # video packets read to measure the keyframe gap


@dataclass(frozen=True)
class MediaInfo:
    duration: float
    has_video: bool
    has_audio: bool
    keyframe_gap: float | None  # mean seconds between keyframes, None when unknown


def open_media(path: str | Path) -> av.container.InputContainer:
    """Open a file with PyAV, turning its failures into one-line MediaErrors."""
    path = Path(path)
    if not path.exists():
        raise MediaError(f"{path}: file not found", "check the path")
    if path.stat().st_size == 0:
        raise MediaError(f"{path}: empty file (0 bytes)", "re-copy or re-export the video")
    try:
        return av.open(str(path))
    except (av.error.FFmpegError, UnicodeDecodeError) as exc:
        what = "not a video file" if isinstance(exc, av.error.InvalidDataError) else "not a readable video"
        raise MediaError(
            f"{path}: {what} ({_in_words(exc)})", "the file is corrupt, truncated or not a video; re-export it"
        ) from exc


def _in_words(exc: Exception) -> str:
    """Why PyAV failed, without FFmpeg's error number and the file name it repeats."""
    if isinstance(exc, av.error.InvalidDataError):
        return "invalid data"
    return getattr(exc, "strerror", None) or exc.__class__.__name__


def probe(path: str | Path) -> MediaInfo:
    with open_media(path) as container:
        has_video = bool(container.streams.video)
        has_audio = bool(container.streams.audio)
        duration = _duration(container)
        gap = _keyframe_gap(container) if has_video else None
    return MediaInfo(duration, has_video, has_audio, gap)


def _duration(container: av.container.InputContainer) -> float:
    if container.duration:
        return container.duration / av.time_base
    streams = list(container.streams.video) + list(container.streams.audio)
    return max((float(s.duration * _time_base(s)) for s in streams if s.duration), default=0.0)


def _time_base(stream: av.stream.Stream) -> Fraction:
    """A demuxed stream's time base (PyAV types it optional; an input stream always has one)."""
    assert stream.time_base is not None, f"{stream} has no time base"
    return stream.time_base


def _keyframe_gap(container: av.container.InputContainer) -> float | None:
    stream = container.streams.video[0]
    times = []
    try:
        for n, packet in enumerate(container.demux(stream)):
            if n >= _PROBE_PACKETS:
                break
            if packet.is_keyframe and packet.pts is not None:
                times.append(float(packet.pts * _time_base(stream)))
    except av.error.FFmpegError:
        pass
    if len(times) < 2:
        return None
    return (times[-1] - times[0]) / (len(times) - 1)


def sample_frames(path: str | Path, fps: float = 1.0, max_side: int = 384, quality: int = 80) -> list[Frame]:
    """Frames at `fps` per second as JPEG, scaled to fit `max_side`. A stream that breaks off
    (a truncated file) gives the frames before the break; raises MediaError when none decode."""
    info = probe(path)
    if not info.has_video:
        return []
    keyframes_only = info.keyframe_gap is not None and info.keyframe_gap <= max(KEYFRAME_GAP, 1 / fps)
    with open_media(path) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        # keyframes alone when they are dense enough; else skip frames nothing refers to
        stream.codec_context.skip_frame = "NONKEY" if keyframes_only else "NONREF"
        frames: list[Frame] = []
        try:
            frames.extend(_pick(container.decode(stream), fps, max_side, quality))
        except av.error.FFmpegError as exc:
            if not frames:
                raise MediaError(
                    f"{path}: video stream cannot be decoded ({_in_words(exc)})",
                    "the file is corrupt or truncated; re-export it",
                ) from exc
            log.info("%s: decoding stopped at %.1f s (%s)", path, frames[-1].t, exc)  # ingest warns
        return frames


def _pick(decoded, fps: float, max_side: int, quality: int):
    step = 1.0 / fps
    next_t = 0.0
    for frame in decoded:
        t = frame.time
        if t is None or t + 1e-3 < next_t:
            continue
        yield Frame(round(t, 3), _to_jpeg(frame, max_side, quality))
        next_t = (int(t / step + 1e-6) + 1) * step


def _to_jpeg(frame: av.VideoFrame, max_side: int, quality: int) -> bytes:
    scale = min(1.0, max_side / max(frame.width, frame.height))
    width, height = max(2, int(frame.width * scale) // 2 * 2), max(2, int(frame.height * scale) // 2 * 2)
    image = frame.reformat(width=width, height=height, format="rgb24").to_image()
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=quality)
    return buffer.getvalue()
