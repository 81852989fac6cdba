"""Text embeddings with sentence-transformers; default all-MiniLM-L6-v2 bundled in a package."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError
from ..models import MINILM_L6, fingerprint, resolve
from ..registry import require

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer


class SentenceTransformerEmbedder:
    max_words = 160  # MiniLM's window is 256 word pieces; ~1.4 pieces per English word

    def __init__(self, model: str | None = None, batch_size: int = 64, device: str | None = None):
        self._path, self.model_name = resolve(model, MINILM_L6)
        if self._path.endswith(".gguf"):
            raise ConfigError(
                f"{self.model_name} is a GGUF model: sentence-transformers cannot load it",
                "add --embed-backend llamacpp (embed.backend = llamacpp)",
            )
        self.batch_size = batch_size
        self.device = device
        self._model: SentenceTransformer | None = None
        self._dim = MINILM_L6.dim if self.model_name == MINILM_L6.name else None

    def warm_up(self) -> None:
        if self._model is None:
            if os.path.exists(self._path):  # a local model: never reach for the hub
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
            SentenceTransformer = require("sentence_transformers", "sentence-transformers").SentenceTransformer

            self._model = SentenceTransformer(self._path, device=self.device)
            self._dim = self._model.get_embedding_dimension()

    @property
    def fingerprint(self) -> str | None:
        """A hash of the model's files (None for a hub id), checked against the index's."""
        return fingerprint(self._path)

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.warm_up()
        assert self._dim is not None, f"{self.model_name} does not say its embedding dimension"
        return self._dim

    def embed(self, texts: list[str]) -> np.ndarray:
        self.warm_up()
        assert self._model is not None
        vectors = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return vectors.astype(np.float32, copy=False)
