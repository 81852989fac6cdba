"""Transcript methods: `textvideorag` (three levels fused and aggregated per video) and the
single-signal video-level baselines `bm25`, `dense` and `hybrid`. All locate moments with the
shared text moment locator."""

from __future__ import annotations

import math

import numpy as np

from ..config import SearchConfig
from ..errors import ConfigError
from ..rerank import moment_reranker_for
from ..retrieve.base import Ranking
from ..retrieve.fusion import alpha_fuse, minmax, normalised, rrf_fuse
from ..retrieve.moments import text_moments
from ..retrieve.scale import Leaders, Moments, Scale, candidate_moments, exact_moments, floor, merged

SHORT_READS = 4  # a compressed level's BM25 short list reads at most this × `candidates` postings per term


def ranking(qc, videos: np.ndarray) -> Ranking:
    """`videos` with their text moments (only the best when a plain search shows one a video
    and no reranker may reorder them: `best_only`)."""
    reranker = moment_reranker_for(qc.config, qc.searcher.resources)
    return Ranking(
        videos,
        lambda v, best_only=False: text_moments(
            qc, v, reranker=reranker, most=1 if best_only and not reranker else None
        ),
    )


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
        for name, level in levels(c):
            total += getattr(cfg, f"{name}_weight") * self.level_scores(qc, name, level, len(c.video_ids))
        return total

    def level_scores(self, qc, name: str, level, n: int) -> np.ndarray:
        """Each video's best fused item at one level, corrected for its number of items
        (`max_correction` × the fused scores' standard deviation × `Level.chances`)."""
        cfg, alpha = self.config, self.alpha
        if cfg.fusion == "alpha":
            return best_items(qc, level, n, alpha, cfg.max_correction, name)
        fused = rrf_fuse(qc.dense(level), qc.lexical(level), cfg.candidates, cfg.rrf_k, alpha)
        return level.per_video_max(fused, n, cfg.max_correction * spread(fused))

    @property
    def alpha(self) -> float:
        alpha = self.config.fusion_alpha(TextVideoRAG.name)
        assert alpha is not None, "textvideorag fuses dense with BM25 (DEFAULT_ALPHA has its α)"
        return alpha

    def statistics(self, qc, leaders: int = 0) -> dict[str, Moments]:
        """Each level's statistics for the query: what a sharded search merges into the
        collection's `Scale`s (`videorag.retrieve.scale`), set as `qc.shared` before `rank`;
        with `leaders`, each level's `Leaders` of this corpus's that many best videos (by its
        own fusion), for the router's `floor`."""
        if self.config.fusion != "alpha":
            raise ConfigError(
                f"a sharded search fuses with 'alpha', not {self.config.fusion!r}",
                "search the sharded index with --fusion alpha (the default)",
            )
        scores = self.video_scores(qc) if leaders else np.zeros(0)
        videos = np.argpartition(-scores, min(leaders, len(scores)) - 1)[:leaders] if len(scores) else scores
        found = {}
        for name, level in levels(qc.corpus):
            found[name] = level_moments(qc, level)
            if leaders:
                found[name].leaders = leader_items(qc, level, videos.astype(np.int64))
        return found

    def merged(self, parts: list[dict[str, Moments]]) -> dict[str, Scale]:
        """The collection's `Scale` per level from every shard's `statistics`."""
        return {name: merged([p[name] for p in parts], self.alpha, self.config.ann_shortlist) for name in parts[0]}

    def floor(self, parts: list[dict[str, Moments]], scales: dict[str, Scale], count: int) -> float:
        """At most the collection's `count`-th best video score, from the shards' `statistics`
        with leaders and their merged `scales` (`scale.floor`)."""
        weights = {name: getattr(self.config, f"{name}_weight") for name in parts[0]}
        return floor(parts, scales, weights, self.alpha, self.config.max_correction, count)

    def rank(self, qc) -> Ranking:
        return ranking(qc, self.video_scores(qc))


def levels(corpus) -> tuple:
    """(name, level) of the three transcript levels `textvideorag` fuses."""
    return (("segment", corpus.segments), ("chunk", corpus.chunks), ("video", corpus.videos))


def level_moments(qc, level) -> Moments:
    if level.ann is not None:
        rows, dense = qc.candidates(level)
        return candidate_moments(qc.lexical(level), rows, dense, level.ann.short)
    return exact_moments(qc.dense(level), qc.lexical(level))


def leader_items(qc, level, videos: np.ndarray) -> Leaders:
    """`videos`' `Leaders` at `level`: each one's best item by dense score (an ANN level: of the
    index's candidates) and by BM25 (vectorised: a few array operations, whatever their number)."""
    videos = np.sort(videos)
    lexical, exact = qc.lexical(level), level.ann is None
    lo, hi = np.searchsorted(level.owner, videos), np.searchsorted(level.owner, videos + 1)
    items = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi, strict=True)] or [np.zeros(0, np.int64)])
    group = np.repeat(np.arange(len(videos)), hi - lo)
    pairs = np.full((2, len(videos), 2), -np.inf)  # dense, BM25 of (best by dense, best by BM25)
    at, best = _best_of_groups(group, lexical[items])
    by_lexical = items[best]
    pairs[1, at, 1] = lexical[by_lexical]
    if exact:
        dense = qc.dense(level)
        pairs[0, at, 1] = dense[by_lexical]
        at, best = _best_of_groups(group, dense[items])
        pairs[:, at, 0] = dense[items[best]], lexical[items[best]]
    else:
        rows, found = qc.candidates(level)
        mine = np.flatnonzero(np.isin(level.owner[rows], videos))
        owners, best = _best_of_groups(level.owner[rows[mine]], found[mine])
        at = np.searchsorted(videos, owners)
        pairs[:, at, 0] = found[mine[best]], lexical[rows[mine[best]]]
    chances = np.where(
        hi > lo, level.chances[np.minimum(np.searchsorted(level.block_owner, videos), len(level.chances) - 1)], 0.0
    )
    return Leaders(pairs[0], pairs[1], chances)


def _best_of_groups(groups: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(each group, the index of its highest value), groups ascending."""
    order = np.lexsort((-values, groups))
    first = np.r_[True, groups[order][1:] != groups[order][:-1]] if len(order) else np.zeros(0, bool)
    return groups[order][first], order[first]


def best_items(qc, level, n: int, alpha: float, correction: float = 0.0, name: str = "") -> np.ndarray:
    """Each video's best item of `level` by α-fused dense + BM25, less `correction` × the fused
    scores' standard deviation × `Level.chances` (an ANN level: from its candidates). The ranges
    and deviation are the collection's `qc.shared[name]` when a sharded search sets them, else
    this corpus's."""
    scale = qc.shared.get(name)
    if scale is None and fuses_short(qc.corpus, level):
        return short_alpha_fuse(qc, level, n, alpha, correction)
    if level.ann is not None:
        return candidate_alpha_fuse(qc, level, n, alpha, correction, scale)
    dense, lexical = qc.dense(level), qc.lexical(level)
    if scale is None:
        fused = alpha_fuse(dense, lexical, alpha)
        return level.per_video_max(fused, n, correction * spread(fused))
    fused = alpha * normalised(dense, *scale.dense) + (1 - alpha) * normalised(lexical, *scale.lexical)
    return level.per_video_max(fused, n, correction * (scale.std or 0.0))


def spread(fused: np.ndarray) -> float:
    """The fused scores' standard deviation; 0 for a level without items (the transcript bench's
    segment level, off by default), which gives no video a score to correct."""
    return float(fused.std()) if len(fused) else 0.0


def candidate_alpha_fuse(qc, level, n: int, alpha: float, correction: float = 0.0, scale=None) -> np.ndarray:
    """`per_video_max(fused, n, correction · fused.std())`, fused = `alpha_fuse(qc.dense(level),
    qc.lexical(level))`, for an ANN level, from its candidates: an item the index did not find
    has the lowest dense score, 0 after min-max, so its fused score is its lexical part alone —
    and every item's is at least that. The result is the same; no collection-sized temporaries
    beyond the BM25 scores (one more for the correction's standard deviation). With the
    collection's `scale` (a sharded search), its ranges, short-list floor and deviation."""
    rows, dense = qc.candidates(level)
    lexical = qc.lexical(level)
    if scale is not None:
        keep = dense >= scale.floor
        rows, dense = rows[keep], dense[keep]
        (low, high), (d_low, d_high) = scale.lexical, scale.dense
    else:
        low, high = float(lexical.min()), float(lexical.max())
        d_low, d_high = (float(dense.min()), float(dense.max())) if len(dense) else (0.0, 0.0)
    weight = (1 - alpha) / (high - low) if high - low >= 1e-12 else 0.0
    out = np.zeros(n, np.float32)
    out[level.block_owner] = (np.maximum.reduceat(lexical, level.block_starts) - low) * weight
    fused = np.zeros(0)
    if len(rows):
        fused = alpha * normalised(dense, d_low, d_high) + (lexical[rows] - low) * weight
        np.maximum.at(out, level.owner[rows], fused.astype(np.float32))
    if correction:
        std = scale.std if scale is not None else None
        if std is None:
            sums = len(lexical), float(lexical.sum(dtype=np.float64)), float(np.dot(lexical, lexical))
            std = _std(sums, low, weight, lexical[rows], fused)
        out[level.block_owner] -= correction * std * level.chances
    return out


def fuses_short(corpus, level) -> bool:
    """Whether one box fuses `level` over short lists: an ANN level of a corpus whose segment
    level is compressed (IVF-PQ, from `ann_compress_rows` units: the scale where scoring every
    unit per query costs more than the rest of a search)."""
    ann = corpus.segments.ann
    return level.ann is not None and ann is not None and ann.short


def short_alpha_fuse(qc, level, n: int, alpha: float, correction: float = 0.0) -> np.ndarray:
    """`candidate_alpha_fuse` over short lists: the ANN's (an IVF-Flat level's candidates cut to
    the `ann_shortlist` nearest) and BM25's, the `SearchConfig.candidates` best items
    (`BM25.top`); the BM25 range and the fused scores' deviation come from `BM25.spread`'s
    sample. A query then costs the two short lists, not the level (10M segments: BM25 and fusion
    no longer touch every item); a video with no item in either list scores 0 before the
    correction. How often the top 10 stays that of fusion over every item: `python -m
    benchmarks ann_quality` (real text) and `scale` (`fusion`)."""
    rows, dense = qc.candidates(level)
    if len(rows) > qc.config.ann_shortlist:
        keep = np.sort(np.argpartition(-dense, qc.config.ann_shortlist - 1)[: qc.config.ann_shortlist])
        rows, dense = rows[keep], dense[keep]
    top_rows, top_scores = qc.lexical_top(level, qc.config.candidates, SHORT_READS * qc.config.candidates)
    low, total, squares = level.bm25.spread(qc.query.text)
    high = float(top_scores[0]) if len(top_scores) else low
    weight = (1 - alpha) / (high - low) if high - low >= 1e-12 else 0.0
    d_low, d_high = (float(dense.min()), float(dense.max())) if len(dense) else (0.0, 0.0)
    out = np.zeros(n, np.float32)
    np.maximum.at(out, level.owner[top_rows], ((top_scores - low) * weight).astype(np.float32))
    lexical = level.bm25.row_scores(qc.query.text, rows)
    fused = alpha * normalised(dense, d_low, d_high) + (lexical - low) * weight
    np.maximum.at(out, level.owner[rows], fused.astype(np.float32))
    if correction:
        std = _std((len(level), total, squares), low, weight, lexical, fused)
        out[level.block_owner] -= correction * std * level.chances
    return out


def _std(sums: tuple[int, float, float], low: float, weight: float, lexical: np.ndarray, fused: np.ndarray) -> float:
    """Standard deviation over every item of its fused score — (BM25 − low)·weight, `fused` at the
    candidates (whose BM25 is `lexical`) — from `sums`, the level's (items, ΣBM25, ΣBM25²): no
    level-sized temporaries (at 10M items 10–14 ms where the array's own `std` took 55–60)."""
    n, total, squares = sums
    if n == 0:
        return 0.0
    base = (lexical.astype(np.float64) - low) * weight
    sum_x = weight * (total - n * low) - base.sum() + fused.sum()
    sum_xx = weight**2 * (squares - 2 * low * total + n * low**2) - (base**2).sum() + (fused**2).sum()
    mean = sum_x / n
    return math.sqrt(max(sum_xx / n - mean**2, 0.0))


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
