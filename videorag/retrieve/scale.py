"""How one level's dense and BM25 scores become a fused score, fixed by collection statistics.

`textvideorag` fuses a level's scores as α·minmax(dense) + (1−α)·minmax(BM25), the min and max
taken over the whole collection (an ANN level: the dense ones over its short list), and corrects
each video's best item by the fused scores' standard deviation. On one box these come from the
corpus's own arrays. A sharded search (`videorag.shard`) must use the whole collection's, or each
shard would stretch its own best item to 1: every shard reports its `Moments` for the query, the
router merges them (`merged`) into one `Scale` per level and hands it back, and every shard then
scores with the same constants — its video scores are those of the unsharded search.

The statistics also bound the collection's k-th best video score from below (`floor`), so that
round 2 locates moments only where they may be shown (4 shards locate 40 videos' moments for the
10 shown without it; locating is most of a shard's work): each shard reports `Leaders`, two
items per level of each of its own k best videos; scored with the collection's `Scale`, each
video's items give at most its round-2 score, so the k-th best of them all is at most the
collection's k-th. Every video scoring at least that floor gets its moments, the shown ones
among them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

SPREAD = 1e-12  # a smaller range normalises to 0 (as `fusion.minmax`)
SLACK = 1e-4  # the floor's margin below a bound: a shard sums float32, the router float64


@dataclass(frozen=True)
class Scale:
    """The constants of one level's fusion: the dense and BM25 ranges over the collection, the
    floor below which an ANN level's candidates are outside the collection's short list (−inf:
    all count) and the fused scores' standard deviation (None: from this corpus's items)."""

    dense: tuple[float, float]
    lexical: tuple[float, float]
    floor: float = -math.inf
    std: float | None = None


@dataclass
class Moments:
    """One shard's statistics of a level for one query. BM25 over every item: count, range,
    sum, sum of squares. Dense over the items that have a score — every item of an exact level,
    an ANN's candidates (all of its probed cells) — as their count, range, Σd, Σd², Σd·l and Σl;
    or, for an ANN that gives a short list, its candidates' (dense, BM25) `pairs`, since which of
    them make the collection's short list is known only once every shard's are in."""

    n: int
    lexical: tuple[float, float]
    lexical_sums: tuple[float, float]
    found: int = 0
    dense: tuple[float, float] = (math.inf, -math.inf)
    dense_sums: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # Σd, Σd², Σd·l, Σl over found
    pairs: np.ndarray | None = None  # (candidates, 2): dense, BM25 (an ANN's short list)
    leaders: Leaders | None = None  # the shard's best videos' items (`floor`)


@dataclass
class Leaders:
    """A shard's best videos (by its own fusion) at one level: two items each — its best by
    dense score, its best by BM25 — as (dense, BM25) pairs, dense −inf where the item has no
    dense score (not among an ANN's candidates), both −inf for a video with no item at the
    level; and each video's `Level.chances`."""

    dense: np.ndarray  # (videos, 2)
    lexical: np.ndarray  # (videos, 2)
    chances: np.ndarray  # (videos,)


def exact_moments(dense: np.ndarray, lexical: np.ndarray) -> Moments:
    """`Moments` of a level scored exactly (every item has a dense score)."""
    return candidate_moments(lexical, None, dense, short=False)


def candidate_moments(lexical: np.ndarray, rows: np.ndarray | None, dense: np.ndarray, short: bool) -> Moments:
    """`Moments` of a level: BM25 over every item, dense over the items `rows` (None: all);
    `short`: they are an ANN's short list."""
    lx = lexical.astype(np.float64)
    d = dense.astype(np.float64)
    found_l = lx if rows is None else lx[rows]
    moments = Moments(len(lx), _range(lx), (float(lx.sum()), float(lx @ lx)))
    if short:
        moments.pairs = np.stack([d, found_l], axis=1) if len(d) else np.zeros((0, 2))
        return moments
    moments.found, moments.dense = len(d), _range(d)
    moments.dense_sums = (float(d.sum()), float(d @ d), float(d @ found_l), float(found_l.sum()))
    return moments


def merged(parts: list[Moments], alpha: float, shortlist: int) -> Scale:
    """The collection's `Scale` from its shards' `Moments`; of short lists, the `shortlist`
    best candidates over all shards count."""
    n = sum(p.n for p in parts)
    lexical = (min(p.lexical[0] for p in parts), max(p.lexical[1] for p in parts))
    sum_l, sum_ll = (sum(p.lexical_sums[i] for p in parts) for i in (0, 1))
    found = sum(p.found for p in parts)
    dense = (min(p.dense[0] for p in parts), max(p.dense[1] for p in parts))
    sums = [sum(p.dense_sums[i] for p in parts) for i in range(4)]
    floor = -math.inf
    if any(p.pairs is not None for p in parts):
        pairs = np.concatenate([p.pairs for p in parts if p.pairs is not None])
        if len(pairs) > shortlist:
            pairs = pairs[np.argsort(-pairs[:, 0], kind="stable")[:shortlist]]
            floor = float(pairs[-1, 0])
        d, lx = pairs[:, 0], pairs[:, 1]
        found += len(d)
        low, high = _range(d)
        dense = (min(dense[0], low), max(dense[1], high))
        sums = [sums[0] + float(d.sum()), sums[1] + float(d @ d), sums[2] + float(d @ lx), sums[3] + float(lx.sum())]
    std = _fused_std(n, found, dense, lexical, tuple(sums), (sum_l, sum_ll), alpha)
    return Scale(dense, lexical, floor, std)


def _fused_std(n, found, dense, lexical, sums, lexical_sums, alpha: float) -> float:
    """Standard deviation over all n items of A·(d − d_lo) + B·l (the fused score less a
    constant), d = d_lo for the items without a dense score."""
    if n == 0:
        return 0.0
    a = alpha / (dense[1] - dense[0]) if dense[1] - dense[0] >= SPREAD else 0.0
    b = (1 - alpha) / (lexical[1] - lexical[0]) if lexical[1] - lexical[0] >= SPREAD else 0.0
    sum_d, sum_dd, sum_dl, sum_found_l = sums
    sum_l, sum_ll = lexical_sums
    low = dense[0] if found else 0.0
    sum_x = sum_d - found * low
    sum_xx = sum_dd - 2 * low * sum_d + found * low * low
    sum_xl = sum_dl - low * sum_found_l
    mean = (a * sum_x + b * sum_l) / n
    square = (a * a * sum_xx + 2 * a * b * sum_xl + b * b * sum_ll) / n
    return math.sqrt(max(square - mean * mean, 0.0))


def _normalised(values: np.ndarray, span: tuple[float, float]) -> np.ndarray:
    return (values - span[0]) / (span[1] - span[0]) if span[1] - span[0] >= SPREAD else np.zeros_like(values)


def _range(values: np.ndarray) -> tuple[float, float]:
    return (float(values.min()), float(values.max())) if len(values) else (math.inf, -math.inf)


def floor(
    parts: list[dict[str, Moments]],
    scales: dict[str, Scale],
    weights: dict[str, float],
    alpha: float,
    correction: float,
    count: int,
) -> float:
    """At most the collection's `count`-th best video score (−inf when the shards' `Leaders`
    name fewer videos): the `count`-th best of their bounds, less `SLACK`. `weights`: each
    level's share of a video's score."""
    bounds = [
        sum(w * _bounds(p[name].leaders, scales[name], alpha, correction) for name, w in weights.items()) for p in parts
    ]
    found = np.concatenate(bounds) if bounds else np.zeros(0)
    if len(found) < count or count < 1:
        return -math.inf
    return float(np.partition(found, len(found) - count)[len(found) - count]) - SLACK


def _bounds(leaders: Leaders | None, scale: Scale, alpha: float, correction: float) -> np.ndarray:
    """Each leader's level score with the collection's `scale`, at most the one round 2 gives
    it: its better item, fused as `methods.text.best_items` fuses, less the chances term."""
    assert leaders is not None, "round 1 asked every shard for its leaders"
    dense, lexical = leaders.dense.astype(np.float64), leaders.lexical.astype(np.float64)
    scored = np.isfinite(dense) & (dense >= scale.floor)
    dense_part = np.where(scored, alpha * _normalised(np.where(scored, dense, 0.0), scale.dense), 0.0)
    lexical_part = (1 - alpha) * _normalised(np.where(np.isfinite(lexical), lexical, 0.0), scale.lexical)
    fused = np.where(np.isfinite(lexical), dense_part + lexical_part, -np.inf)  # −inf: no item at the level
    return fused.max(axis=1) - correction * (scale.std or 0.0) * leaders.chances
