"""How one level's dense and BM25 scores become a fused score, fixed by collection statistics.

`textvideorag` fuses a level's scores as α·minmax(dense) + (1−α)·minmax(BM25), the min and max
taken over the whole collection (an ANN level: the dense ones over its short list), and corrects
each video's best item by the fused scores' standard deviation. On one box these come from the
corpus's own arrays. A sharded search (`videorag.shard`) must use the whole collection's, or each
shard would stretch its own best item to 1: every shard reports its `Moments` for the query, the
router merges them (`merged`) into one `Scale` per level and hands it back, and every shard then
scores with the same constants — its video scores are those of the unsharded search.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

SPREAD = 1e-12  # a smaller range normalises to 0 (as `fusion.minmax`)


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


def _range(values: np.ndarray) -> tuple[float, float]:
    return (float(values.min()), float(values.max())) if len(values) else (math.inf, -math.inf)
