"""On-screen text by OCR with Tesseract (Debian `tesseract-ocr`), the offline default captioner.

Only distinct frames are read (see `dedup`); they go to one `tesseract` process per batch (its
start-up, ~0.4 s, dominates a single small frame), enlarged 2× in grayscale, which Tesseract
reads far better than the stored ≤ 384-pixel colour frames. Lines with few letters are dropped.
"""

from __future__ import annotations

import io
import logging
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from PIL import Image

from ..errors import CaptionError, MissingDependencyError
from ..types import Caption, Frame, Segment
from .base import SAID_SECONDS, caption_frames
from .dedup import CHANGED_SHARE

log = logging.getLogger(__name__)

INSTALL_HINT = "apt-get install tesseract-ocr (or: make install)"
BATCH = 32  # frames per tesseract process: bounds the temporary files and the memory
UPSCALE = 2  # Tesseract wants text taller than the stored frames give it
_LETTER = re.compile(r"[^\W\d_]")


def clean(text: str, min_letters: int = 3, min_share: float = 0.5) -> str:
    """OCR text as one line: lines with under `min_letters` letters, or where letters are under
    `min_share` of the non-space characters (noise read from textures), are dropped."""
    kept = []
    for line in text.splitlines():
        line = " ".join(line.split())
        letters = len(_LETTER.findall(line))
        chars = len(line.replace(" ", ""))
        if letters >= min_letters and letters >= min_share * chars:
            kept.append(line)
    return " ".join(kept)


class OCRCaptioner:
    """`model` is the Tesseract language, e.g. 'eng' (default) or 'eng+deu'; `base_url` is
    ignored (no server), accepted so that every captioner is built alike."""

    name = "ocr"

    def __init__(
        self,
        model: str | None = None,
        base_url: str | None = None,
        said_seconds: float = SAID_SECONDS,
        changed_share: float = CHANGED_SHARE,
        batch: int = BATCH,
    ):
        binary = shutil.which("tesseract")
        if binary is None:
            raise MissingDependencyError(
                "the ocr captioner needs the tesseract binary, not found on PATH", INSTALL_HINT
            )
        self.binary = binary
        self.language = (model or "eng").removeprefix("tesseract:")  # a recorded model_name works too
        self.model_name = f"tesseract:{self.language}"
        self.said_seconds, self.changed_share, self.batch = said_seconds, changed_share, batch

    def caption(self, frames: list[Frame], segments: list[Segment]) -> list[Caption]:
        return caption_frames(frames, segments, self.describe, "on screen", self.said_seconds, self.changed_share)

    def describe(self, frames: list[Frame]) -> list[str]:
        """The cleaned on-screen text of each frame."""
        texts: list[str] = []
        for i in range(0, len(frames), self.batch):
            texts += [clean(t) for t in self.read(frames[i : i + self.batch])]
        return texts

    def read(self, frames: list[Frame]) -> list[str]:
        """Raw Tesseract text of each frame, one process for all of them."""
        if not frames:
            return []
        with tempfile.TemporaryDirectory(prefix="videorag-ocr-") as tmp:
            paths = [_prepared(frame, Path(tmp) / f"{i}.pgm") for i, frame in enumerate(frames)]
            listing = Path(tmp) / "frames.txt"
            listing.write_text("\n".join(paths) + "\n")
            pages = self._run(listing).split("\f")
        if len(pages) == len(frames) + 1 and not pages[-1].strip():
            pages.pop()
        if len(pages) != len(frames):
            raise CaptionError(
                f"tesseract returned {len(pages)} pages for {len(frames)} frames",
                "report this with the output of `tesseract --version`",
            )
        return pages

    def _run(self, listing: Path) -> str:
        env = dict(os.environ, OMP_THREAD_LIMIT="1")
        result = subprocess.run(
            [self.binary, str(listing), "stdout", "-l", self.language], capture_output=True, env=env, check=False
        )
        stderr = result.stderr.decode(errors="replace")
        if result.returncode != 0:
            if "Failed loading language" in stderr or "Error opening data file" in stderr:
                packages = " ".join(f"tesseract-ocr-{lang}" for lang in self.language.split("+"))
                raise MissingDependencyError(
                    f"tesseract has no {self.language!r} language data", f"apt-get install {packages}"
                )
            raise CaptionError(
                f"tesseract failed ({result.returncode}): {stderr.strip()[-300:]}",
                "check the tesseract install: tesseract --version",
            )
        return result.stdout.decode(errors="replace")


def _prepared(frame: Frame, path: Path) -> str:
    with Image.open(io.BytesIO(frame.jpeg)) as image:
        gray = image.convert("L")
        gray.resize((gray.width * UPSCALE, gray.height * UPSCALE), Image.Resampling.LANCZOS).save(path)
    return str(path)
