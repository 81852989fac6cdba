"""`best`: the shipped text-only method, in two stages.

1. hybrid (α·dense + (1−α)·lexical, each min-max normalised) with the phrase signal (stem
   bigrams) inside the lexical part; plus the dense score of the query's other phrasing when one
   is given (WikiHowQA's "How To …" beside the task title); plus, with `evidence_weight`, the
   video's best segment — evidence anywhere in the video, not only what it says it is about;
2. the top `rerank_depth` are re-scored by centrality (the cluster hypothesis): cosine of each
   video's BM25 term vector to the others', weighted by their first-stage scores. The videos a
   search engine returns for a task share vocabulary; the most typical of them ranks high.
"""

from __future__ import annotations

import numpy as np

from ..config import SearchConfig
from ..retrieve.base import Ranking
from ..retrieve.fusion import alpha_fuse, minmax
from ..retrieve.searcher import top
from .text import best_items, dense_videos, lexical_videos, ranking


class Best:
    name = "best"

    def __init__(self, config: SearchConfig):
        self.config = config

    def first_stage(self, qc) -> np.ndarray:
        cfg, c, alpha = self.config.best, qc.corpus, self.config.fusion_alpha(Best.name)
        assert alpha is not None, "best fuses dense with BM25 (DEFAULT_ALPHA has its α)"
        scores = alpha_fuse(dense_videos(qc), lexical_videos(qc, cfg.bigram_weight), alpha)
        if cfg.evidence_weight and len(c.segments):
            evidence = best_items(qc, c.segments, len(c.video_ids), alpha, self.config.max_correction, "segment")
            scores = scores + cfg.evidence_weight * evidence
        return scores

    def rank(self, qc) -> Ranking:
        scores = self.first_stage(qc)
        head = top(scores, self.config.best.rerank_depth)
        final = scores.astype(np.float64) - scores.max() - 1.0  # the head stays above the rest
        final[head] = self._rerank(qc, head, scores[head]) + 1.0
        return ranking(qc, final)

    def _rerank(self, qc, head: np.ndarray, first: np.ndarray) -> np.ndarray:
        """New scores of the head videos, in [0, ∞): first stage + question + centrality."""
        cfg = self.config.best
        base = minmax(first)
        question = qc.query.question
        if question and cfg.question_weight:
            base = base + cfg.question_weight * minmax(dense_videos(qc, question, head))
        vectors = qc.corpus.videos.bm25.doc_vectors(head)
        similarity = (vectors @ vectors.T).toarray()
        base = base + cfg.centrality_weight * minmax(similarity @ minmax(base) ** cfg.centroid_power)
        return base - base.min()
