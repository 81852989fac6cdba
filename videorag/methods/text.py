"""Transcript methods: `textvideorag` (three levels fused and aggregated per video) and the
single-signal video-level baselines `bm25`, `dense` and `hybrid`. All locate moments with the
shared text moment locator."""

from __future__ import annotations

import numpy as np

from ..config import SearchConfig
from ..rerank import moment_reranker_for
from ..retrieve.base import Ranking
from ..retrieve.fusion import alpha_fuse, minmax, rrf_fuse
from ..retrieve.moments import text_moments


def ranking(qc, videos: np.ndarray) -> Ranking:
    reranker = moment_reranker_for(qc.config, qc.searcher.resources)
    return Ranking(videos, lambda v: text_moments(qc, v, reranker=reranker))


class TextVideoRAG:
    """Per level (segment, chunk, whole video): α-fused dense + BM25 (or RRF); a video's score
    is the weighted sum of its best item at each level. α: `SearchConfig.fusion_alpha` (also for
    the methods built on this one, e.g. videorag-vt)."""

    name = "textvideorag"

    def __init__(self, config: SearchConfig):
        self.config = config

    def video_scores(self, qc) -> np.ndarray:
        c, cfg = qc.corpus, self.config
        total = np.zeros(len(c.video_ids), np.float32)
        for name, level in (("segment", c.segments), ("chunk", c.chunks), ("video", c.videos)):
            total += getattr(cfg, f"{name}_weight") * self.level_scores(qc, level, len(c.video_ids))
        return total

    def level_scores(self, qc, level, n: int) -> np.ndarray:
        """Each video's best fused item at one level, corrected for its number of items
        (`max_correction` × the fused scores' standard deviation × `Level.chances`)."""
        cfg, alpha = self.config, self.config.fusion_alpha(TextVideoRAG.name)
        assert alpha is not None, "textvideorag fuses dense with BM25 (DEFAULT_ALPHA has its α)"
        if cfg.fusion == "alpha":
            return best_items(qc, level, n, alpha, cfg.max_correction)
        fused = rrf_fuse(qc.dense(level), qc.lexical(level), cfg.candidates, cfg.rrf_k, alpha)
        return level.per_video_max(fused, n, cfg.max_correction * float(fused.std()))

    def rank(self, qc) -> Ranking:
        return ranking(qc, self.video_scores(qc))


def best_items(qc, level, n: int, alpha: float, correction: float = 0.0) -> np.ndarray:
    """Each video's best item of `level` by α-fused dense + BM25, less `correction` × the fused
    scores' standard deviation × `Level.chances` (an ANN level: from its candidates)."""
    if level.ann is not None:
        return candidate_alpha_fuse(qc, level, n, alpha, correction)
    fused = alpha_fuse(qc.dense(level), qc.lexical(level), alpha)
    return level.per_video_max(fused, n, correction * float(fused.std()))


def candidate_alpha_fuse(qc, level, n: int, alpha: float, correction: float = 0.0) -> np.ndarray:
    """`per_video_max(fused, n, correction · fused.std())`, fused = `alpha_fuse(qc.dense(level),
    qc.lexical(level))`, for an ANN level, from its candidates: an item the index did not find
    has the lowest dense score, 0 after min-max, so its fused score is its lexical part alone —
    and every item's is at least that. The result is the same; no collection-sized temporaries
    beyond the BM25 scores (one more for the correction's standard deviation)."""
    rows, dense = qc.candidates(level)
    lexical = qc.lexical(level)
    low, high = float(lexical.min()), float(lexical.max())
    scale = (1 - alpha) / (high - low) if high - low >= 1e-12 else 0.0
    out = np.zeros(n, np.float32)
    out[level.block_owner] = (np.maximum.reduceat(lexical, level.block_starts) - low) * scale
    fused = np.zeros(0)
    if len(rows):
        spread = float(dense.max() - dense.min())
        d = (dense - dense.min()) / spread if spread >= 1e-12 else np.zeros_like(dense)
        fused = alpha * d + (lexical[rows] - low) * scale
        np.maximum.at(out, level.owner[rows], fused.astype(np.float32))
    if correction:
        whole = (lexical - low) * scale
        whole[rows] = fused
        out[level.block_owner] -= correction * float(whole.std()) * level.chances
    return out


def dense_videos(qc, text: str | None = None, rows=slice(None)) -> np.ndarray:
    """Each video's best chunk similarity (on the bench corpus: its best opening piece)."""
    c = qc.corpus
    return c.chunks.per_video_max(qc.dense(c.chunks, text), len(c.video_ids))[rows]


def lexical_videos(qc, phrase_weight: float = 0.0) -> np.ndarray:
    """BM25 over whole videos, optionally mixed with stem-bigram BM25 (phrases)."""
    c = qc.corpus
    scores = qc.lexical(c.videos)
    if not phrase_weight:
        return scores
    phrases = c.videos.bigram_bm25.scores(qc.query.text)
    return (1 - phrase_weight) * minmax(scores) + phrase_weight * minmax(phrases)


class BM25Method:
    name = "bm25"

    def __init__(self, config: SearchConfig):
        self.config = config

    def rank(self, qc) -> Ranking:
        return ranking(qc, lexical_videos(qc))


class DenseMethod(BM25Method):
    name = "dense"

    def rank(self, qc) -> Ranking:
        return ranking(qc, dense_videos(qc))


class HybridMethod(BM25Method):
    name = "hybrid"

    def rank(self, qc) -> Ranking:
        a = self.config.fusion_alpha(HybridMethod.name)
        assert a is not None, "hybrid fuses dense with BM25 (DEFAULT_ALPHA has its α)"
        return ranking(qc, a * minmax(dense_videos(qc)) + (1 - a) * minmax(lexical_videos(qc)))
