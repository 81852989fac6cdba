"""RAG-Adapter's Dual Reranker (Section 3.2): candidates found by the frame retriever and by the
caption retriever are keyed by (video, time); each retriever's scores are min-max normalised over
its own list and summed per frame; then Maximal Marginal Relevance picks K frames:
    MR_i = θ · s_i − (1 − θ) · max_{j ∈ S} sim(i, j)
with the redundancy taken as the maximum cosine similarity to the frames already chosen."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..retrieve.base import Candidate
from ..retrieve.fusion import minmax
from .base import SELECTING


def dual_sum(candidates: list[Candidate]) -> list[Candidate]:
    """One candidate per (video, time): the sum of each source's min-max normalised score."""
    by_source: dict[str, list[Candidate]] = {}
    for c in candidates:
        by_source.setdefault(c.source, []).append(c)
    summed: dict[tuple[int, float], list] = {}
    for group in by_source.values():
        for c, s in zip(group, minmax(np.array([c.score for c in group], np.float64)), strict=True):
            entry = summed.setdefault((c.video, c.start), [c, 0.0, []])
            entry[1] += float(s)
            entry[2].append(c.source)
            if c.text and not entry[0].text:
                entry[0] = c
    out = [
        Candidate(c.video, c.unit, c.start, c.end, score, "+".join(sorted(sources)), c.text)
        for c, score, sources in summed.values()
    ]
    return sorted(out, key=lambda c: -c.score)


def mmr(scores: np.ndarray, vectors: np.ndarray, k: int, theta: float) -> list[int]:
    """Indices of k items chosen by MMR, in the order chosen (the best-scoring first)."""
    n = len(scores)
    if n == 0:
        return []
    sim = vectors @ vectors.T
    chosen = [int(np.argmax(scores))]
    redundancy = sim[chosen[0]].copy()
    free = np.ones(n, bool)
    free[chosen[0]] = False
    while len(chosen) < min(k, n):
        marginal = np.where(free, theta * scores - (1 - theta) * redundancy, -np.inf)
        i = int(np.argmax(marginal))
        chosen.append(i)
        free[i] = False
        redundancy = np.maximum(redundancy, sim[i])
    return chosen


class DualMMR:
    """`rerank(qc, candidates)` → K candidates, MMR order. `vectors(candidates)` gives the unit
    vectors whose cosine measures redundancy (frame embeddings, else caption embeddings).

    A selecting reranker (`videorag.rerank.SELECTORS`), not a scoring one: it fuses several
    retrievers' lists and keeps K of them, so it is built by the method that has those vectors
    (`rag-adapter`), never by `create_reranker`."""

    name = "dual-mmr"
    kind = SELECTING  # its registry's kind

    def __init__(self, k: int = 10, theta: float = 0.7, vectors: Callable[[list[Candidate]], np.ndarray] | None = None):
        self.k, self.theta, self.vectors = k, theta, vectors

    def rerank(self, qc, candidates: list[Candidate]) -> list[Candidate]:
        pooled = dual_sum(candidates)
        if not pooled or self.vectors is None:
            return pooled[: self.k]
        scores = np.array([c.score for c in pooled])
        return [pooled[i] for i in mmr(scores, self.vectors(pooled), self.k, self.theta)]
