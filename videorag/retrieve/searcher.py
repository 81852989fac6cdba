"""Hybrid search: BM25 + dense over segments, chunks and whole transcripts, fused per level,
aggregated per video. One hit per video, pointing at its best-matching segment."""
from __future__ import annotations

import numpy as np

from ..config import SearchConfig
from ..types import Hit
from .corpus import Corpus, Level
from .fusion import alpha_fuse, rrf_fuse


class HybridSearcher:
    def __init__(self, corpus: Corpus, embedder, config: SearchConfig | None = None):
        self.corpus = corpus
        self.embedder = embedder
        self.config = config or SearchConfig()

    def fuse(self, level: Level, query: str, qvec: np.ndarray) -> np.ndarray:
        if not len(level):
            return np.zeros(0, np.float32)
        dense = level.vectors @ qvec
        lexical = level.bm25.scores(query)
        cfg = self.config
        if cfg.fusion == "rrf":
            return rrf_fuse(dense, lexical, cfg.candidates, cfg.rrf_k, cfg.alpha)
        return alpha_fuse(dense, lexical, cfg.alpha)

    def video_scores(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """(score per video, fused score per segment)."""
        qvec = self.embedder.embed([query])[0]
        c, cfg, n = self.corpus, self.config, len(self.corpus.video_ids)
        seg = self.fuse(c.segments, query, qvec)
        total = cfg.segment_weight * c.segments.per_video_max(seg, n)
        total += cfg.chunk_weight * c.chunks.per_video_max(self.fuse(c.chunks, query, qvec), n)
        total += cfg.video_weight * c.videos.per_video_max(self.fuse(c.videos, query, qvec), n)
        return total, seg

    def search(self, query: str, top_k: int | None = None) -> list[Hit]:
        top_k = top_k or self.config.top_k
        if not self.corpus.video_ids:
            return []
        scores, seg = self.video_scores(query)
        k = min(top_k, len(scores))
        best = np.argpartition(-scores, k - 1)[:k]
        return [self._hit(int(v), float(scores[v]), seg) for v in best[np.argsort(-scores[best], kind="stable")]]

    def _hit(self, video: int, score: float, seg: np.ndarray) -> Hit:
        level = self.corpus.segments
        i = level.best_in(video, seg)
        start, end, text = (level.starts[i], level.ends[i], level.texts[i]) if i is not None else (0.0, 0.0, "")
        return Hit(self.corpus.video_ids[video], self.corpus.paths[video], float(start), float(end),
                   score, text)
