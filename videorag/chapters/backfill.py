"""Chapters for the videos of an index made before them (format 3 or older): found from the
segments and vectors the index already holds, no file decoded again (`videorag optimize`)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
from tqdm.auto import tqdm

from ..embed import TextEmbedder, embed_long
from ..types import Segment
from . import chapters_of


def add_missing(index, embedder_of: Callable[[bool], TextEmbedder], progress: bool = False) -> int:
    """Give every video of `index` without chapters its chapters; `embedder_of(multilingual)` is
    the embedder that made a video's vectors. Returns how many videos gained them."""
    if not index.has_chapters:
        index.upgrade()
    rows = index.videos(["video_id", "duration"]).to_pylist()
    have = set(index.chapters())
    missing = [r for r in rows if r["video_id"] not in have]
    other = index.multilingual({r["video_id"] for r in missing})
    for row in tqdm(missing, desc="chapters", unit="video", disable=not progress or not missing):
        video_id = row["video_id"]
        units = sorted(
            (u for u in index.units({video_id}).to_pylist() if u["kind"] == "segment"), key=lambda u: u["idx"]
        )
        segments = [Segment(u["start"], u["end"], u["text"]) for u in units]
        vectors = np.array([u["vector"] for u in units], np.float32).reshape(len(units), -1)
        embedder = embedder_of(video_id in other)
        found = chapters_of(segments, vectors, row["duration"], partial(embed_long, embedder))
        index.set_chapters(video_id, found)
    return len(missing)
