"""Image and text preparation shared by the transformers backends when a model folder has no
processor files (random-weight presets): CLIP-style resize, centre crop, normalise; hashed words."""

from __future__ import annotations

import io
import re
import zlib

import numpy as np
from PIL import Image

CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)
_WORD = re.compile(r"\w+|[^\w\s]")


def to_image(item) -> Image.Image:
    """A PIL image from a PIL image, JPEG/PNG bytes or an HxWx3 uint8 array."""
    if isinstance(item, Image.Image):
        return item.convert("RGB")
    if isinstance(item, (bytes, bytearray)):
        return Image.open(io.BytesIO(item)).convert("RGB")
    return Image.fromarray(np.asarray(item, np.uint8)).convert("RGB")


def pixels(images: list, size: int, mean=CLIP_MEAN, std=CLIP_STD) -> np.ndarray:
    """(n, 3, size, size) float32: shorter side resized to `size`, centre-cropped, normalised."""
    out = np.zeros((len(images), 3, size, size), np.float32)
    for i, item in enumerate(images):
        image = to_image(item)
        scale = size / min(image.size)
        image = image.resize(
            (max(size, round(image.width * scale)), max(size, round(image.height * scale))), Image.Resampling.BICUBIC
        )
        left, top = (image.width - size) // 2, (image.height - size) // 2
        array = np.asarray(image.crop((left, top, left + size, top + size)), np.float32) / 255.0
        out[i] = ((array - mean) / std).transpose(2, 0, 1)
    return out


def hashed_tokens(
    texts: list[str], vocab: int, length: int, bos: int | None = None, eos: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(ids, mask) with words hashed into the vocabulary: for random-weight models only."""
    ids = np.zeros((len(texts), length), np.int64)
    mask = np.zeros((len(texts), length), np.int64)
    for row, text in enumerate(texts):
        words = [zlib.crc32(w.encode()) % (vocab - 3) + 1 for w in _WORD.findall(text.lower())]
        seq = ([bos] if bos is not None else []) + words[: length - 2] + ([eos] if eos is not None else [])
        ids[row, : len(seq)] = seq
        mask[row, : len(seq)] = 1
    return ids, mask
