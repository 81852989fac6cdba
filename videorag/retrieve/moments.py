"""Moment localisation inside one video: which stretch answers the query, not which one only
restates what the whole video is about.

Three general mechanisms, each measured in `benchmarks/bench_moments.py`:
1. topic discount — a segment's dense score loses β·(q·t)·(s·t), t the video's own topic vector
   (the mean of its chunks): what the query shares with the video's overall topic counts less,
   so a title line or a table of contents stops winning over the step that answers;
2. within-video lexical scoring — BM25 with document frequencies taken over the video's own
   segments, so words every part of the video uses (its topic) weigh little and words specific
   to one stretch weigh much;
3. neighbouring-segment context — an answer is usually said over several consecutive segments,
   a topic mention is isolated: each segment's score gets a share of its neighbours'.
The peak segment is cited with its neighbours (`pad_segments`) and widened over those that score
nearly as well, up to `max_seconds`; the next moments are the next peaks outside the chosen ones
(non-maximum suppression).
"""

from __future__ import annotations

import numpy as np

from ..config import MomentConfig
from .base import Candidate, Reranker
from .fusion import minmax


def text_moments(
    qc, video: int, source: str = "text", reranker: Reranker | None = None, most: int | None = None
) -> list[Candidate]:
    """The video's moments for the query, best first, scores in [0, 1] (1 = the best); rescored
    by `reranker` when one is given (the one `MomentConfig.reranker` names:
    `videorag.rerank.moment_reranker_for(config)`); `most`: at most that many (default
    `MomentConfig.per_video`)."""
    cfg, level = qc.config.moments, qc.corpus.segments
    lo, hi = level.span(video)
    if lo == hi:
        return []
    specific, plain = own_relevance(qc, video, lo, hi, cfg)
    scores = minmax(with_context(specific, cfg.context_weight)) if hi - lo > 1 else np.ones(1)
    found = peaks(
        scores, plain, level.starts[lo:hi], level.ends[lo:hi], _Span(level.texts, lo), video, cfg, source, most
    )
    return reranker.rerank(qc, found) if reranker is not None else found


def segment_relevance(qc, video: int, lo: int, hi: int, cfg: MomentConfig) -> np.ndarray:
    """Each segment's relevance inside the video with its neighbours' context, in [0, 1]."""
    specific, _ = own_relevance(qc, video, lo, hi, cfg)
    return minmax(with_context(specific, cfg.context_weight)) if hi - lo > 1 else np.ones(1)


def own_relevance(qc, video: int, lo: int, hi: int, cfg: MomentConfig) -> tuple[np.ndarray, np.ndarray]:
    """Each segment's own relevance inside the video, in [0, 1]: (with the topic discount,
    without it). The discount ranks peaks; widening uses the plain score, since the discount
    lifts off-topic chatter relative to on-topic lines that do not answer."""
    level = qc.corpus.segments
    dense = qc.dense_span(level, lo, hi)
    lexical = np.zeros(hi - lo)
    if cfg.lexical_weight and hi - lo > 1:
        lexical = minmax(level.bm25.local_scores(lo, hi, qc.query.text))
    mix = lambda d: minmax((1 - cfg.lexical_weight) * minmax(d) + cfg.lexical_weight * lexical)  # noqa: E731
    if not cfg.topic_discount:
        return mix(dense), mix(dense)
    topic = qc.corpus.videos.vectors[video]
    discount = cfg.topic_discount * float(qc.vector_of(video) @ topic) * (level.vectors[lo:hi] @ topic)
    return mix(dense - discount), mix(dense)


class _Span:
    """Texts of one video's items, read only when sliced (a snapshot decodes each on access)."""

    def __init__(self, texts, lo: int):
        self.texts, self.lo = texts, lo

    def __getitem__(self, i: slice) -> list[str]:
        return self.texts[self.lo + i.start : self.lo + i.stop]


def with_context(scores: np.ndarray, weight: float) -> np.ndarray:
    """score + weight · mean of the neighbours' scores (the one neighbour at either end)."""
    if not weight or len(scores) < 2:
        return scores
    total = np.zeros_like(scores)
    total[1:] += scores[:-1]
    total[:-1] += scores[1:]
    count = np.full(len(scores), 2.0)
    count[[0, -1]] = 1.0
    return scores + weight * total / count


def peaks(
    scores: np.ndarray,
    own: np.ndarray,
    starts,
    ends,
    texts,
    video: int,
    cfg: MomentConfig,
    source: str,
    most: int | None = None,
) -> list[Candidate]:
    """Non-maximum suppression: the best segment (by `scores`, with context) widened over
    neighbours whose `own` score is close to the peak's, within `max_seconds`; then the best
    segment outside it, and so on, `most` moments (default `per_video`)."""
    free = np.ones(len(scores), bool)
    out: list[Candidate] = []
    while free.any() and len(out) < (most or cfg.per_video):
        peak = int(np.flatnonzero(free)[np.argmax(scores[free])])
        lo, hi = widen(peak, own, starts, ends, free, cfg)
        free[lo : hi + 1] = False
        out.append(
            Candidate(
                video,
                "moment",
                float(starts[lo]),
                float(ends[hi]),
                float(scores[peak]),
                source,
                " ".join(texts[lo : hi + 1]),
            )
        )
    return out


def widen(peak: int, scores, starts, ends, free, cfg: MomentConfig) -> tuple[int, int]:
    """The peak with `pad_segments` free neighbours on each side (the lead-in and the rest of
    what is being said), then the neighbours scoring at least `widen_ratio` of the peak, all
    within `max_seconds`."""
    lo = hi = peak

    def fits(i: int) -> bool:
        return (
            0 <= i < len(scores) and free[i] and max(ends[hi], ends[i]) - min(starts[lo], starts[i]) <= cfg.max_seconds
        )

    for _ in range(cfg.pad_segments):
        lo -= fits(lo - 1)
        hi += fits(hi + 1)
    floor = cfg.widen_ratio * scores[peak]
    while True:
        options = [i for i in (lo - 1, hi + 1) if fits(i) and scores[i] >= floor]
        if not options:
            return lo, hi
        best = max(options, key=lambda i: scores[i])
        lo, hi = min(lo, best), max(hi, best)


def merge_overlapping(moments: list[Candidate], max_seconds: float) -> list[Candidate]:
    """Moments of one video that overlap become one (best score, union span, capped in length
    around the better one); the result keeps best-first order."""
    kept: list[Candidate] = []
    for m in sorted(moments, key=lambda c: -c.score):
        clash = next((i for i, k in enumerate(kept) if m.start < k.end and k.start < m.end), None)
        if clash is None:
            kept.append(m)
            continue
        k = kept[clash]
        start, end = min(k.start, m.start), max(k.end, m.end)
        if end - start > max_seconds:
            start, end = k.start, k.end
        text = k.text if m.text in k.text else f"{k.text} {m.text}" if m.start >= k.start else f"{m.text} {k.text}"
        kept[clash] = Candidate(k.video, k.unit, start, end, k.score, k.source, text)
    return kept
