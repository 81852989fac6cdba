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
from ..retrieve.base import Candidate
from .base import ScoringReranker

MODEL_HINT = ("set the reranker's model, --rerank-model FOLDER (a sentence-transformers CrossEncoder) "
              "or a hub id")
_LOCK = threading.Lock()
_MODELS: dict[str, tuple[object, threading.Lock]] = {}   # model spec -> (CrossEncoder, its lock)


def _load(spec: str):
    """The CrossEncoder for `spec` (loaded once per process) and the lock serialising its calls."""
    with _LOCK:
        if spec not in _MODELS:
            # sentence-transformers is a core dependency (no extra to name), imported only here
            from sentence_transformers import CrossEncoder

            local = Path(spec).expanduser()
            try:
                model = (CrossEncoder(str(local), local_files_only=True) if local.exists()
                         else CrossEncoder(spec))
            except (OSError, ValueError) as exc:   # no such folder / hub id, not a model
                first = (str(exc).splitlines() or [type(exc).__name__])[0]
                raise ModelNotFoundError(f"cannot load CrossEncoder {spec!r} ({first})", MODEL_HINT) from exc
            _MODELS[spec] = (model, threading.Lock())
    return _MODELS[spec]


class CrossEncoderReranker(ScoringReranker):
    name = "cross-encoder"
    modalities = frozenset({"text"})

    def score(self, qc, candidates: list[Candidate]) -> np.ndarray:
        if self.config.model is None:
            raise ConfigError("the `cross-encoder` reranker has no model (no default weights offline)",
                              MODEL_HINT)
        out = np.full(len(candidates), np.nan)
        rows = self.judgeable(candidates)
        if not rows:
            return out
        import torch

        model, lock = _load(self.config.model)
        pairs = [(qc.query.text, candidates[i].text or " ") for i in rows]
        with lock:   # a fast tokenizer must not be used from two threads at once
            raw = model.predict(pairs, batch_size=self.config.batch_size, show_progress_bar=False,
                                activation_fn=torch.nn.Identity(), convert_to_numpy=True)
        raw = np.asarray(raw, np.float64).reshape(len(rows), -1)
        if raw.shape[1] != 1:
            raise ConfigError(f"CrossEncoder {self.config.model!r} gives {raw.shape[1]} scores per pair, "
                              "not one relevance score", MODEL_HINT)
        out[rows] = raw[:, 0]
        return out
