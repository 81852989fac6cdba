"""Tiny silent videos with sidecar subtitles, made in milliseconds (no narration, no ASR): for
tests that exercise the index, not the models."""
from __future__ import annotations

from pathlib import Path

import av
import numpy as np

TOPICS = ("boil water in a kettle", "patch a bicycle tube", "descale the coffee machine",
          "sharpen a kitchen knife", "repot a house plant", "bleed a radiator", "grout bathroom tiles",
          "tune a guitar string")


def tiny_video(path: Path, seconds: int = 4, seed: int = 0, faststart: bool = False, srt: bool = True) -> Path:
    """An H.264 video of `seconds` of noise frames (from `seed`) and, with `srt`, a
    subtitle file beside it, one cue per second about topic `seed`."""
    rng = np.random.default_rng(seed)
    options = {"movflags": "faststart"} if faststart else {}
    with av.open(str(path), "w", options=options) as out:
        stream = out.add_stream("libx264", rate=5)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        stream.options = {"g": "5"}
        for i in range(seconds * 5):
            image = rng.integers(0, 255, (48, 64, 3), dtype=np.uint8)  # noise: real-sized packets
            out.mux(stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24")))
        out.mux(stream.encode())
    if srt:
        topic = TOPICS[seed % len(TOPICS)]
        cues = [f"{i + 1}\n00:00:{i:02d},000 --> 00:00:{i:02d},900\nstep {i} to {topic} (video {seed})\n"
                for i in range(seconds)]
        Path(path).with_suffix(".srt").write_text("\n".join(cues))
    return path


def tiny_videos(folder: Path, count: int, seconds: int = 4) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    return [tiny_video(folder / f"video-{i}.mp4", seconds, seed=i) for i in range(count)]
