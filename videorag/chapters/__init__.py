"""Chapters: a video's topics, each with a start, an end and a short title, found once at ingest
from its transcript and the vectors its segments already have (`split.py`: where the topic
changes; `title.py`: what to call each stretch). A video shorter than `SHORTEST_VIDEO` is one
chapter."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import IndexError_
from ..types import Chapter, Segment
from .split import boundaries
from .title import titles

__all__ = ["SHORTEST_VIDEO", "chapters_of", "listing"]

SHORTEST_VIDEO = 180.0  # seconds: shorter videos are one chapter


def chapters_of(
    segments: list[Segment], vectors: np.ndarray, duration: float, embed: Callable[[list[str]], np.ndarray]
) -> list[Chapter]:
    """The chapters of a video of `duration` seconds whose segments have these (unit) vectors;
    `embed` is the embedder that made them (titles are compared in its space)."""
    duration = max(duration, segments[-1].end if segments else 0.0)
    if not segments:
        return [Chapter(0.0, duration, "")]
    starts = boundaries(segments, vectors, duration) if duration >= SHORTEST_VIDEO else [0.0]
    ends = [*starts[1:], duration]
    groups = [[i for i, s in enumerate(segments) if a <= s.start < b] for a, b in zip(starts, ends, strict=True)]
    centres = np.stack([_centre(vectors[g]) if g else np.zeros(vectors.shape[1]) for g in groups])
    names = titles([[segments[i] for i in g] for g in groups], centres, embed)
    return [Chapter(a, b, name) for a, b, name in zip(starts, ends, names, strict=True)]


def _centre(vectors: np.ndarray) -> np.ndarray:
    total = vectors.sum(axis=0)
    return total / max(float(np.linalg.norm(total)), 1e-12)


def listing(index, video: dict) -> dict:
    """`schemas.Chapters` of an indexed video (its `videos` row: id and path); refused in words
    when it was indexed before chapters were."""
    found = index.chapters(video["video_id"]).get(video["video_id"])
    if found is None:
        raise IndexError_(
            f"{video['path']} was indexed before videorag found chapters",
            f"run `videorag optimize --index {index.location}` to add them (no file is read again)",
        )
    return {"video_id": video["video_id"], "path": video["path"], "chapters": [c.to_dict() for c in found]}
