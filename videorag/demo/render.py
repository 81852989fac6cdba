"""Render narrated how-to videos: espeak-ng speech over drawn slides, encoded with PyAV.

Used by `videorag demo` and by the tests, which need media with known words at known times.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..errors import MissingDependencyError

SAMPLE_RATE = 22050  # espeak-ng's native rate
PAUSE = 0.8  # seconds of silence after each step
PALETTE = [(38, 70, 83), (42, 157, 143), (233, 196, 106), (244, 162, 97), (231, 111, 81), (90, 60, 120)]


@dataclass(frozen=True)
class HowTo:
    """A narrated video: one spoken step after another. `slides` optionally gives each step's
    slide text (e.g. a chapter heading, as real recordings show); by default a step's slide
    shows what is said."""

    slug: str
    title: str
    steps: tuple[str, ...]
    slides: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.slides and len(self.slides) != len(self.steps):
            raise ValueError(
                f"`slides` needs one text per step: got {len(self.slides)} slides for {len(self.steps)} steps"
            )

    def slide(self, i: int) -> str:
        return self.slides[i] if self.slides else self.steps[i]


@dataclass(frozen=True)
class StepSpan:
    start: float
    end: float
    text: str


def speak(text: str, speed: int = 165, voice: str = "en") -> np.ndarray:
    """Mono int16 speech for `text` at SAMPLE_RATE, in espeak-ng's `voice` (a language code)."""
    if shutil.which("espeak-ng") is None:
        raise MissingDependencyError("espeak-ng is not installed", "apt-get install espeak-ng")
    with tempfile.NamedTemporaryFile(suffix=".wav") as tmp:
        command = ["espeak-ng", "-v", voice, "-s", str(speed), "-w", tmp.name, text]
        subprocess.run(command, check=True, capture_output=True)
        with wave.open(tmp.name) as wav:
            return np.frombuffer(wav.readframes(wav.getnframes()), np.int16)


def _slide(title: str, text: str, color: tuple, size: tuple[int, int]) -> np.ndarray:
    image = Image.new("RGB", size, color)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=22)
    draw.text((20, 20), title, fill=(255, 255, 255), font=font)
    words, lines, line = text.split(), [], ""
    for word in words:
        if len(line) + len(word) > 40:
            lines.append(line)
            line = ""
        line = f"{line} {word}".strip()
    lines.append(line)
    for i, content in enumerate(lines[:8]):
        draw.text((20, 80 + 28 * i), content, fill=(250, 250, 250), font=ImageFont.load_default(size=18))
    draw.rectangle([size[0] - 60, size[1] - 60, size[0] - 20, size[1] - 20], fill=(255, 255, 255))
    return np.asarray(image)


def render(
    howto: HowTo,
    path: Path,
    fps: int = 10,
    size: tuple[int, int] = (480, 270),
    audio: bool = True,
    gop: int | None = None,
    speed: int = 165,
    voice: str = "en",
) -> list[StepSpan]:
    """Write `howto` to `path` (mp4/mkv/webm by suffix); returns each step's time span.
    `speed` is espeak-ng's speaking rate (its words per minute setting), `voice` its language."""
    speech = [speak(s, speed, voice) for s in howto.steps]
    pause = np.zeros(int(PAUSE * SAMPLE_RATE), np.int16)
    spans, t = [], 0.0
    for text, clip in zip(howto.steps, speech, strict=True):
        length = len(clip) / SAMPLE_RATE + PAUSE
        spans.append(StepSpan(t, t + length, text))
        t += length
    track = np.concatenate([np.concatenate([c, pause]) for c in speech])
    _encode(path, howto, spans, track if audio else None, fps, size, gop or fps)
    return spans


def _encode(path: Path, howto: HowTo, spans: list[StepSpan], track, fps: int, size, gop: int) -> None:
    webm = path.suffix == ".webm"
    with av.open(str(path), "w") as out:
        vstream = out.add_stream("libvpx" if webm else "libx264", rate=fps)
        vstream.width, vstream.height, vstream.pix_fmt = size[0], size[1], "yuv420p"
        vstream.gop_size = gop
        astream = None
        if track is not None:
            astream = out.add_stream("libopus" if webm else "aac", rate=48000 if webm else SAMPLE_RATE)
            astream.layout = "mono"
        for i, span in enumerate(spans):
            slide = _slide(howto.title, howto.slide(i), PALETTE[i % len(PALETTE)], size)
            for n in range(round(span.start * fps), round(span.end * fps)):
                frame = av.VideoFrame.from_ndarray(slide, format="rgb24")
                frame.pts, frame.time_base = n, Fraction(1, fps)
                out.mux(vstream.encode(frame))
        out.mux(vstream.encode())
        if astream is not None:
            _encode_audio(out, astream, track)


def _encode_audio(out, stream, track: np.ndarray) -> None:
    frame = av.AudioFrame.from_ndarray(track.reshape(1, -1), format="s16", layout="mono")
    frame.sample_rate = SAMPLE_RATE
    resampler = av.AudioResampler(format=stream.format.name, layout="mono", rate=stream.rate)
    for chunk in resampler.resample(frame):
        out.mux(stream.encode(chunk))
    out.mux(stream.encode())
