"""Scoring rerankers: a backend gives each candidate a relevance to the query on its own scale
(comparable inside one call), and `rerank` turns that into a new order.

Required of a backend: `name`, `modalities` (which candidates it can judge: "text" — the
candidate's `text` —, "visual" — its `frames`, JPEGs read from the index —) and `score`. A
candidate it cannot judge gets NaN and keeps its own score in `rerank`. CARVE uses the raw
`score` (a chunk's views compete on one scale); moments use `rerank`, which mixes it, min-max
normalised, with the candidate's own score.
"""

from __future__ import annotations

import numpy as np

from ..config import VISUAL_VIEWS, RerankConfig
from ..resources import Resources, own
from ..retrieve.base import Candidate
from ..retrieve.fusion import minmax

SCORING, SELECTING = "scoring reranker", "selecting reranker"  # the two kinds (registries) of rerankers


def modality(candidate: Candidate) -> str:
    """ "visual" for a candidate found by a visual view (judged on its frames), else "text"."""
    return "visual" if candidate.source in VISUAL_VIEWS else "text"


class ScoringReranker:
    """Base of the scoring backends (`e5`, `cross-encoder`, `llm`)."""

    name = "scoring"
    kind = SCORING  # its registry's kind
    modalities: frozenset[str] = frozenset({"text"})
    calibrated = False  # True: scores are probabilities in [0, 1], comparable across queries (the judge)

    def __init__(self, weight: float = 0.5, config: RerankConfig | None = None, resources: Resources | None = None):
        self.weight = weight  # share of the reranker's score beside the candidate's own, in `rerank`
        self.config = config or RerankConfig(backend=self.name)
        self.resources = own(resources)  # where its model is kept: its owner's (a VideoRAG's), else its own

    def score(self, qc, candidates: list[Candidate]) -> np.ndarray:
        """Relevance of each candidate to `qc.query` (higher is better; NaN = cannot judge)."""
        raise NotImplementedError

    @property
    def label(self) -> str:
        """Optional: which model this is, for answers and reports (default: the backend's name)."""
        return self.name

    def warm_up(self) -> None:
        """Optional: load the model now rather than on the first query."""

    def judgeable(self, candidates: list[Candidate]) -> list[int]:
        return [i for i, c in enumerate(candidates) if modality(c) in self.modalities]

    def rerank(self, qc, candidates: list[Candidate]) -> list[Candidate]:
        if len(candidates) < 2:
            return list(candidates)
        raw = np.asarray(self.score(qc, candidates), np.float64)
        own = np.array([c.score for c in candidates], np.float64)
        judged = ~np.isnan(raw)
        mixed = own.copy()
        if judged.any():
            mixed[judged] = (1 - self.weight) * own[judged] + self.weight * minmax(raw[judged])
        order = np.argsort(-mixed, kind="stable")
        return [
            Candidate(
                c.video,
                c.unit,
                c.start,
                c.end,
                float(mixed[i]),
                f"{c.source}+{self.name}" if judged[i] else c.source,
                c.text,
                c.frames,
            )
            for i, c in ((i, candidates[i]) for i in order)
        ]
