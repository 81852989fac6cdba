"""VideoRAG's visual methods: `videorag-v` (the query against each video's frame-based vector;
the moment is the segment around the best-matching frame) and `videorag-vt` (α·text +
(1−α)·visual, each min-max normalised over the collection — the paper's ensemble)."""

from __future__ import annotations

import numpy as np

from ..config import SearchConfig
from ..errors import IndexError_
from ..retrieve.base import Candidate, Ranking
from ..retrieve.fusion import minmax
from .text import TextVideoRAG, ranking


def visual_scores(qc) -> np.ndarray:
    if qc.corpus.visual is None:
        raise IndexError_(
            "this method needs frame embeddings; the index has none",
            "re-index with --visual clip --visual-model FOLDER (see docs/models.md)",
        )
    return qc.corpus.visual @ qc.visual_vector()


def frame_moment(qc, video: int) -> list[Candidate]:
    """The segment around the video's best-matching frame (the frame's second without text)."""
    frames = qc.corpus.frames
    times, vectors = frames.of(video) if frames is not None else ([], None)
    if not len(times):
        return []
    i = int(np.argmax(vectors @ qc.visual_vector()))
    t = float(times[i])
    level = qc.corpus.segments
    lo, hi = level.span(video)
    inside = [j for j in range(lo, hi) if level.starts[j] <= t <= level.ends[j]]
    if inside:
        j = inside[0]
        return [Candidate(video, "frame", level.starts[j], level.ends[j], 1.0, "visual", level.texts[j])]
    return [Candidate(video, "frame", t, t + 1.0, 1.0, "visual")]


class VisualOnly:
    name = "videorag-v"

    def __init__(self, config: SearchConfig):
        self.config = config

    def rank(self, qc) -> Ranking:
        return Ranking(visual_scores(qc), lambda v, best_only=False: frame_moment(qc, v))


class VisualText(TextVideoRAG):
    name = "videorag-vt"

    def rank(self, qc) -> Ranking:
        a = self.config.visual_alpha
        return ranking(qc, a * minmax(self.video_scores(qc)) + (1 - a) * minmax(visual_scores(qc)))
