"""`cross-encoder`: candidates rescored by a sentence-transformers `CrossEncoder`, a model that
reads the query and a candidate's text together (e.g. an MS MARCO MiniLM cross-encoder). Text
only. No weights ship with videorag: `config.model` names a local folder or a hub id. Its score
is the model's raw output for the pair (query, text), a logit (no sigmoid), batched by
`config.batch_size`."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from ..errors import ConfigError, ModelNotFoundError
from ..registry import require
from ..retrieve.base import Candidate
from .base import ScoringReranker

MODEL_HINT = "set the reranker's model, --rerank-model FOLDER (a sentence-transformers CrossEncoder) or a hub id"


def _load(spec: str) -> tuple[object, threading.Lock]:
    """The CrossEncoder for `spec` and a lock serialising its calls."""
    CrossEncoder = require("sentence_transformers", "sentence-transformers").CrossEncoder  # torch: an extra

    local = Path(spec).expanduser()
    try:
        model = CrossEncoder(str(local), local_files_only=True) if local.exists() else CrossEncoder(spec)
    except (OSError, ValueError) as exc:  # no such folder / hub id, not a model
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise ModelNotFoundError(f"cannot load CrossEncoder {spec!r} ({first})", MODEL_HINT) from exc
    return model, threading.Lock()


class CrossEncoderReranker(ScoringReranker):
    name = "cross-encoder"
    modalities = frozenset({"text"})

    def score(self, qc, candidates: list[Candidate]) -> np.ndarray:
        if self.config.model is None:
            raise ConfigError("the `cross-encoder` reranker has no model (no default weights offline)", MODEL_HINT)
        out = np.full(len(candidates), np.nan)
        rows = self.judgeable(candidates)
        if not rows:
            return out
        import torch

        spec = self.config.model
        model, lock = self.resources.get(("cross-encoder", spec), lambda: _load(spec))  # once per owner
        pairs = [(qc.query.text, candidates[i].text or " ") for i in rows]
        with lock:  # a fast tokenizer must not be used from two threads at once
            raw = model.predict(
                pairs,
                batch_size=self.config.batch_size,
                show_progress_bar=False,
                activation_fn=torch.nn.Identity(),
                convert_to_numpy=True,
            )
        raw = np.asarray(raw, np.float64).reshape(len(rows), -1)
        if raw.shape[1] != 1:
            raise ConfigError(
                f"CrossEncoder {self.config.model!r} gives {raw.shape[1]} scores per pair, not one relevance score",
                MODEL_HINT,
            )
        out[rows] = raw[:, 0]
        return out
