"""A model-free embedder (hashed bag of words): a fast test double, not for real retrieval."""

from __future__ import annotations

import re
import zlib

import numpy as np

_WORD = re.compile(r"\w+")


class HashingEmbedder:
    max_words = 10_000

    def __init__(self, model: str | None = None, batch_size: int = 64, device: str | None = None, dim: int = 256):
        self.dim = dim
        self.model_name = f"hashing-{dim}"

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                out[row, zlib.crc32(word.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)
