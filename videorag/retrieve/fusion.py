"""Score fusion: α-interpolation of min-max normalised scores (the VideoRAG ensemble form) and
reciprocal-rank fusion."""

from __future__ import annotations

import numpy as np


def minmax(scores: np.ndarray) -> np.ndarray:
    if scores.size == 0:
        return scores
    return normalised(scores, float(scores.min()), float(scores.max()))


def normalised(scores: np.ndarray, low: float, high: float) -> np.ndarray:
    """`scores` mapped from [low, high] onto [0, 1] (zeros when the range is empty)."""
    if high - low < 1e-12:
        return np.zeros_like(scores)
    return (scores - low) / (high - low)


def alpha_fuse(dense: np.ndarray, lexical: np.ndarray, alpha: float) -> np.ndarray:
    """α·dense + (1−α)·lexical, each normalised to [0, 1] over the collection."""
    return alpha * minmax(dense) + (1 - alpha) * minmax(lexical)


def reciprocal_ranks(scores: np.ndarray, depth: int, k: int = 60) -> np.ndarray:
    """1/(k + rank) for the `depth` best items (rank from 1), 0 for the rest."""
    out = np.zeros(scores.shape, np.float32)
    depth = min(depth, scores.size)
    if depth == 0:
        return out
    top = np.argpartition(-scores, depth - 1)[:depth]
    top = top[np.argsort(-scores[top], kind="stable")]
    out[top] = 1.0 / (k + np.arange(1, depth + 1))
    return out


def rrf_fuse(dense: np.ndarray, lexical: np.ndarray, depth: int, k: int = 60, alpha: float = 0.5) -> np.ndarray:
    """Weighted RRF, scaled so a first-ranked item in both lists scores 1."""
    fused = alpha * reciprocal_ranks(dense, depth, k) + (1 - alpha) * reciprocal_ranks(lexical, depth, k)
    return fused * (k + 1)
