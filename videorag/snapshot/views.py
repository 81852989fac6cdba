"""CARVE's chunks and their four views, built with the search snapshot (at ingest or `optimize`)
and saved in it:

| view | items per chunk | vectors |
|---|---|---|
| `text-clip` | the chunk's transcript | text embedder (the index's chunk rows) |
| `text-frame` | captions of ≤ 5 keyframes (k-means++ over the chunk's caption vectors) | text embedder |
| `visual-frame` | ≤ 5 keyframes (k-means++ over the chunk's frame vectors, chosen at ingest) | visual embedder |
| `visual-clip` | one clip vector of ≤ 64 frames (video tower, or the mean of frame vectors) | visual embedder |

A chunk is a fixed window [k·s, (k+1)·s) of one video, s = the index's `chunk_seconds`. A view
the index cannot give (no captioner, no visual backend) is absent, never faked. Retrieval under a
view scores its items and keeps each chunk's best item.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..config import TEXT_VIEWS
from ..types import Candidate
from ..vectors.ivf import InRowOrder, Vectors
from ..visual.selection import kmeans_frames

KEYFRAMES = 5
DEFAULT_CHUNK_SECONDS = 120.0


@dataclass
class View:
    """One view's items: the chunk each belongs to, its vector, text and frame times."""

    name: str
    chunk: np.ndarray  # (items,) row in ChunkViews
    vectors: Vectors  # (items, dim) unit rows
    texts: Sequence[str]
    frames: Sequence[tuple[float, ...]]

    @property
    def visual(self) -> bool:
        return self.name not in TEXT_VIEWS

    def best_per_chunk(self, query: np.ndarray, n_chunks: int) -> tuple[np.ndarray, np.ndarray]:
        """(each chunk's best item score, -inf where it has none; that item's row)."""
        scores = self.vectors @ query if len(self.chunk) else np.zeros(0, np.float32)
        best = np.full(n_chunks, -np.inf)
        np.maximum.at(best, self.chunk, scores)
        item = np.full(n_chunks, -1)
        hit = np.flatnonzero(scores >= best[self.chunk])
        item[self.chunk[hit]] = hit
        return best, item


@dataclass
class ChunkViews:
    video: np.ndarray  # (chunks,) corpus video row
    starts: np.ndarray
    ends: np.ndarray
    views: dict[str, View]
    models: dict[str, str]  # view → the model(s) that made it

    def __len__(self) -> int:
        return len(self.video)

    def retrieve(self, name: str, query: np.ndarray, k: int) -> list[Candidate]:
        """The view's top-k chunks for a query vector in its space, best first."""
        view = self.views[name]
        best, item = view.best_per_chunk(query, len(self))
        found = np.flatnonzero(np.isfinite(best))
        order = found[np.argsort(-best[found], kind="stable")][:k]
        return [self.candidate(view, int(c), float(best[c]), int(item[c])) for c in order]

    def candidate(self, view: View, chunk: int, score: float, best_item: int) -> Candidate:
        """A chunk as `view` shows it: its text (its items', best first, one per line) or its frames."""
        items = [best_item] + [int(i) for i in np.flatnonzero(view.chunk == chunk) if i != best_item]
        text = "\n".join(view.texts[i] for i in items if view.texts[i])
        frames = tuple(t for i in items for t in view.frames[i])
        return Candidate(
            int(self.video[chunk]),
            "chunk",
            float(self.starts[chunk]),
            float(self.ends[chunk]),
            score,
            view.name,
            text,
            frames,
        )


def build(corpus, meta: dict, visual_rows=None) -> ChunkViews:
    """The chunks and views of every video in `corpus`: its chunk level and captions, and the
    index's chunk rows `visual_rows` (a table of video_id, start, keyframes, keyframe_vectors,
    vector; None without a visual backend). `meta` names the models and `chunk_seconds`."""
    table = _ChunkTable(corpus.videos.ends, float(meta.get("chunk_seconds", DEFAULT_CHUNK_SECONDS)))
    raw, models = {}, {}
    level = corpus.chunks
    if len(level):
        raw["text-clip"] = (table.rows(level.owner, level.starts), level.vectors, level.texts, NoFrames(len(level)))
        models["text-clip"] = meta.get("embed_model", "")
    if corpus.captions is not None and len(corpus.captions):
        raw["text-frame"] = _keyframe_captions(corpus.captions, table)
        models["text-frame"] = f"{meta['captioner']['model']} captions, {meta['embed_model']}"
    if visual_rows is not None and visual_rows.num_rows:
        raw.update(_visual_views(visual_rows, corpus, table, meta))
        models["visual-frame"] = meta["visual_model"]
        models["visual-clip"] = meta["clip_model"]
    video, starts, ends = table.arrays()
    views = {
        name: View(name, np.asarray(chunk, np.int64), _unit(vectors), texts, frames)
        for name, (chunk, vectors, texts, frames) in raw.items()
    }
    return ChunkViews(video, starts, ends, views, {k: v for k, v in models.items() if k in views})


def _unit(vectors):
    """A view's vectors as float32 rows (an ANN level's vectors are kept in place, not copied)."""
    return vectors if isinstance(vectors, InRowOrder) else np.asarray(vectors, np.float32)


class NoFrames(Sequence):
    """`n` empty frame tuples (a text view's items stand for no frames)."""

    def __init__(self, n: int):
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        return ()


class _ChunkTable:
    """Assigns a row to each (video, window) as views name them."""

    def __init__(self, durations: np.ndarray, seconds: float):
        self.durations, self.seconds = durations, seconds
        self.key: dict[tuple[int, int], int] = {}

    def rows(self, owners, times) -> list[int]:
        out = []
        for owner, t in zip(np.asarray(owners).tolist(), np.asarray(times, np.float64).tolist(), strict=True):
            key = (int(owner), int(t // self.seconds + 1e-9))
            out.append(self.key.setdefault(key, len(self.key)))
        return out

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        keys = sorted(self.key, key=self.key.__getitem__)
        video = np.asarray([v for v, _ in keys], np.int64)
        starts = np.asarray([k * self.seconds for _, k in keys], np.float64)
        ends = np.asarray(
            [max(s, min(s + self.seconds, float(self.durations[v]))) for (v, _), s in zip(keys, starts, strict=True)],
            np.float64,
        )
        return video, starts, ends


def _keyframe_captions(captions, table: _ChunkTable):
    """≤ KEYFRAMES captions per chunk: k-means++ over the chunk's caption vectors."""
    chunk = np.asarray(table.rows(captions.owner, captions.starts))
    kept: list[int] = []
    for c in np.unique(chunk):
        rows = np.flatnonzero(chunk == c)
        kept += [int(rows[i]) for i in kmeans_frames(captions.vectors[rows], KEYFRAMES)]
    keep = np.asarray(sorted(kept), np.int64)
    return (
        chunk[keep],
        captions.vectors[keep],
        [captions.texts[i] for i in keep],
        [(float(captions.starts[i]),) for i in keep],
    )


def _visual_views(rows, corpus, table: _ChunkTable, meta: dict) -> dict:
    """visual-frame (one item per keyframe) and visual-clip (one item per chunk)."""
    if not rows.num_rows:
        return {}
    dim = meta["visual_dim"]
    row_of = {v: i for i, v in enumerate(corpus.video_ids)}
    owners = [row_of[v] for v in rows["video_id"].to_pylist()]
    chunks = table.rows(owners, rows["start"].to_numpy())
    keyframes = rows["keyframes"].to_pylist()
    per_chunk: list[np.ndarray] = [np.asarray(v, np.float32) for v in rows["keyframe_vectors"].to_pylist()]
    flat = np.concatenate(per_chunk or [np.zeros(0)])
    frame_chunk = [c for c, times in zip(chunks, keyframes, strict=True) for _ in times]
    frame_times = [(t,) for times in keyframes for t in times]
    clip = np.asarray(rows["vector"].combine_chunks().flatten().to_numpy(zero_copy_only=False), np.float32).reshape(
        -1, dim
    )
    return {
        "visual-frame": (frame_chunk, flat.reshape(-1, dim), [""] * len(frame_times), frame_times),
        "visual-clip": (chunks, clip, [""] * len(chunks), [tuple(t) for t in keyframes]),
    }
