"""Cheap perceptual deduplication of consecutive frames: small grayscale thumbnails compared
pixel by pixel. A frame counts as new when enough thumbnail pixels changed noticeably — a slide
change, a new line of text, a cut — and as a repeat when only compression noise differs."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from ..types import Frame

THUMB_SIZE = (64, 36)  # thumbnail (width, height); aspect ratio is ignored
CHANGED_LEVEL = 16  # grey levels a thumbnail pixel must move to count as changed
CHANGED_SHARE = 0.005  # share of changed pixels that makes a frame new (a line of text ≈ 0.02)


def thumbnail(jpeg: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(jpeg)) as image:
        return np.asarray(image.convert("L").resize(THUMB_SIZE, Image.Resampling.BILINEAR), np.int16)


def changed(a: np.ndarray, b: np.ndarray, share: float = CHANGED_SHARE) -> bool:
    return float(np.mean(np.abs(a - b) > CHANGED_LEVEL)) > share


def distinct(frames: list[Frame], share: float = CHANGED_SHARE) -> list[int]:
    """For each frame, the position of the frame it repeats: itself when it differs from the
    last kept frame, else that kept frame. Holds one thumbnail at a time."""
    owners: list[int] = []
    kept, kept_jpeg = None, None
    for i, frame in enumerate(frames):
        if kept_jpeg is not None and frame.jpeg == kept_jpeg:
            owners.append(owners[-1])
            continue
        thumb = thumbnail(frame.jpeg)
        if kept is None or changed(kept, thumb, share):
            kept, kept_jpeg = thumb, frame.jpeg
            owners.append(i)
        else:
            owners.append(owners[-1])
    return owners
