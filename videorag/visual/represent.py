"""A video's visual representation for retrieval and its frames for generation, from the
frame embeddings: k-means++ candidates, then the learned scorer when one is trained (else all
candidates for retrieval, an even spread for generation)."""

from __future__ import annotations

import numpy as np

from ..embed import normalize
from . import EmbedsVideo
from .scorer import best_generation_subset, best_retrieval_subset
from .selection import kmeans_frames, reduce_frames, uniform_frames


def retrieval_frames(
    vectors: np.ndarray, k: int = 8, subset: int = 4, net=None, reduction: str = "kmeans"
) -> list[int]:
    """Indices (time order) of the frames that stand for the video in visual retrieval."""
    candidates = reduce_frames(vectors, k, reduction)
    if net is None or len(candidates) <= subset:
        return candidates
    return [candidates[i] for i in best_retrieval_subset(net, vectors[candidates], subset)]


def video_vector(vectors: np.ndarray, chosen: list[int], visual=None, images: list | None = None) -> np.ndarray:
    """Mean of the chosen frame vectors, or the model's own clip embedding when it has one."""
    if visual is not None and images is not None and isinstance(visual, EmbedsVideo):
        return visual.embed_video([images[i] for i in chosen])
    if not chosen:
        return np.zeros(vectors.shape[1] if vectors.ndim == 2 else 0, np.float32)
    return normalize(vectors[chosen].mean(axis=0, keepdims=True))[0]


def generation_frames(
    vectors: np.ndarray, query: np.ndarray | None, budget: int = 32, candidates: int = 64, net=None
) -> list[int]:
    """Indices (time order) of the frames sent to the generator: `budget` of the k-means++
    `candidates`, query-aware when a generation scorer is trained."""
    pool = kmeans_frames(vectors, candidates)
    if len(pool) <= budget:
        return pool
    if net is not None and query is not None:
        return sorted(pool[i] for i in best_generation_subset(net, vectors[pool], query, budget))
    return [pool[i] for i in uniform_frames(len(pool), budget)]


KEYFRAMES, CLIP_FRAMES = 5, 64  # CARVE: keyframes per chunk; frames behind a chunk's clip vector


def clip_label(visual) -> str:
    """What makes the chunks' clip vectors, as recorded in the index."""
    if isinstance(visual, EmbedsVideo):
        return f"{visual.model_name} (video tower)"
    return f"mean of {visual.model_name} frame vectors"


def chunk_views(
    times: list[float], vectors: np.ndarray, seconds: float, duration: float, visual=None, images: list | None = None
) -> list:
    """CARVE's visual views per non-overlapping window of `seconds`: ≤ 5 keyframes (k-means++
    over the window's frames) and a clip vector of ≤ 64 of its frames spread evenly — the
    model's video tower when it has one, else the mean of their frame vectors."""
    from ..types import ChunkView

    keys = (np.asarray(times, np.float64) // seconds).astype(np.int64)
    out = []
    for k in np.unique(keys):
        rows = np.flatnonzero(keys == k)
        key = [int(rows[i]) for i in kmeans_frames(vectors[rows], KEYFRAMES)]
        clip = [int(rows[i]) for i in uniform_frames(len(rows), CLIP_FRAMES)]
        vector = video_vector(vectors, clip, visual, images)
        out.append(
            ChunkView(
                float(k * seconds),
                float(min((k + 1) * seconds, max(duration, times[rows[-1]]))),
                [float(times[i]) for i in key],
                vectors[key],
                vector,
            )
        )
    return out
