"""Frame-space reduction (VideoRAG Appendix C): k-means++ over a video's frame features keeping
the frame nearest each centroid; uniform and random reduction as baselines. Indices come back
in time order."""

from __future__ import annotations

import numpy as np

REDUCTIONS = ("kmeans", "uniform", "random")


def kmeans_frames(features: np.ndarray, k: int, seed: int = 0) -> list[int]:
    """Indices of the frames nearest the k-means++ centroids (all frames when there are ≤ k)."""
    n = len(features)
    if n <= k:
        return list(range(n))
    _, first = np.unique(np.asarray(features, np.float32), axis=0, return_index=True)
    if len(first) <= k:  # fewer distinct frames than centroids: one of each
        return sorted(int(i) for i in first)
    from sklearn.cluster import KMeans

    km = KMeans(n_clusters=k, init="k-means++", n_init=1, random_state=seed).fit(features)
    chosen: list[int] = []
    for c in range(k):
        members = np.flatnonzero(km.labels_ == c)
        if len(members):
            d = np.linalg.norm(features[members] - km.cluster_centers_[c], axis=1)
            chosen.append(int(members[np.argmin(d)]))
    return sorted(set(chosen))


def uniform_frames(n: int, k: int) -> list[int]:
    if n <= k:
        return list(range(n))
    return sorted({int((i + 0.5) * n / k) for i in range(k)})


def random_frames(n: int, k: int, seed: int = 0) -> list[int]:
    if n <= k:
        return list(range(n))
    return sorted(np.random.default_rng(seed).choice(n, size=k, replace=False).tolist())


def reduce_frames(features: np.ndarray, k: int, how: str = "kmeans", seed: int = 0) -> list[int]:
    if how == "kmeans":
        return kmeans_frames(features, k, seed)
    if how == "uniform":
        return uniform_frames(len(features), k)
    if how == "random":
        return random_frames(len(features), k, seed)
    from ..errors import ConfigError

    raise ConfigError(f"unknown frame reduction {how!r}", f"choose one of: {', '.join(REDUCTIONS)}")
