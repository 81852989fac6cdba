"""The search corpus read out of the index (LanceDB): the write side of the search snapshot, run
when ingest or `videorag optimize` saves it (or when a read-only index is searched from memory).
Searches never come here: they map the snapshot (`videorag.snapshot`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .corpus import Corpus, FrameVectors, Level
from .stream import level_into
from .views import DEFAULT_CHUNK_SECONDS
from .views import build as build_views
from .words import of_index


def corpus_of(index, only: set[str] | None = None, into: Path | None = None) -> Corpus:
    """The corpus of every video in `index` (a `VideoIndex`), or of the videos in `only`
    (then transcripts alone, for extending a snapshot). With `into` (a new snapshot's folder),
    the segment and chunk levels are written there a block at a time and mapped
    (`videorag.snapshot.stream`: no level whole in memory); else they are built in memory."""
    import pyarrow as pa
    import pyarrow.compute as pc

    videos = index.videos(["video_id", "path", "duration", "text", "vector"])
    if only is not None:
        videos = videos.filter(pc.is_in(videos["video_id"], value_set=pa.array(sorted(only), pa.string())))
    ids = videos["video_id"].to_pylist()
    row = {v: i for i, v in enumerate(ids)}
    dim = index.meta["dim"]
    if into is not None:  # the videos of this read only (an ingest may be committing)
        segment, chunk = (level_into(into, index, name, row, dim) for name in ("segment", "chunk"))
    else:
        units = index.units(set(ids))
        segment, chunk = (_level(units, kind, row, dim) for kind in ("segment", "chunk"))
    whole = Level.build(
        np.arange(len(ids), dtype=np.int32),
        np.zeros(len(ids)),
        videos["duration"].to_numpy(),
        videos["text"].to_pylist(),
        vectors_of(videos["vector"], index.meta["dim"]),
    )
    seconds = float(index.meta.get("chunk_seconds", DEFAULT_CHUNK_SECONDS))
    corpus = Corpus(
        ids,
        videos["path"].to_pylist(),
        segment,
        chunk,
        whole,
        chunk_seconds=seconds,
        embed_model=index.meta["embed_model"],
    )
    if index.has_words:
        corpus.words = of_index(index.per_video("words", set(ids)), row)
    if index.has_chapters:
        corpus.chapters = of_index(index.per_video("chapters", set(ids)), row, "titles")
    multilingual = index.multilingual(set(ids))
    if multilingual:
        corpus.multilingual = np.asarray([v in multilingual for v in ids], bool)
    languages = index.languages()
    if any(languages.get(v, ("en",))[0] != "en" for v in ids):
        corpus.languages = [languages.get(v, ("en",))[0] for v in ids]
    if only is None:
        _add_frames(corpus, index)
    return corpus


def _level(units, kind: str, row: dict[str, int], dim: int) -> Level:
    import pyarrow.compute as pc

    part = units.filter(pc.equal(units["kind"], kind)) if units.num_rows else units
    owner = np.asarray([row[v] for v in part["video_id"].to_pylist()], np.int32)
    return Level.build(
        owner,
        part["start"].to_numpy(),
        part["end"].to_numpy(),
        part["text"].to_pylist(),
        vectors_of(part["vector"], dim),
    )


def _add_frames(corpus: Corpus, index) -> None:
    """What the index has beyond transcripts: captions, frame vectors, each video's visual
    vector, and CARVE's chunk views built from them (k-means over each chunk's captions)."""
    ids, row = corpus.video_ids, corpus.row
    if index.has_captions:
        corpus.captions = _captions(index.captions(), row, index.meta["dim"])
    if index.has_visual:
        corpus.visual = np.zeros((len(ids), index.meta["visual_dim"]), np.float32)
        for video_id, vector in index.visual_vectors(set(ids)).items():
            corpus.visual[row[video_id]] = vector
        corpus.frames = _frame_vectors(index, row, index.meta["visual_dim"])
    visual_rows = index.chunk_views(set(ids)) if index.has_chunk_views else None
    corpus.views = build_views(corpus, index.meta, visual_rows)


def _captions(table, row: dict[str, int], dim: int) -> Level:
    keep = [i for i, v in enumerate(table["video_id"].to_pylist()) if v in row]
    table = table.take(keep)
    owner = np.asarray([row[v] for v in table["video_id"].to_pylist()], np.int32)
    times = table["t"].to_numpy()
    return Level.build(owner, times, times, table["text"].to_pylist(), vectors_of(table["vector"], dim))


def _frame_vectors(index, row: dict[str, int], dim: int) -> FrameVectors:
    """Every frame vector of the corpus's videos, sorted by video row, then time (one scan)."""
    table = index.all_frame_vectors(set(row))
    owner = np.asarray([row[v] for v in table["video_id"].to_pylist()], np.int32)
    times = table["t"].to_numpy().astype(np.float64)
    order = np.lexsort((times, owner))
    return FrameVectors(owner[order], times[order], vectors_of(table["vector"], dim)[order])


def vectors_of(column, dim: int) -> np.ndarray:
    """A column of fixed-size vectors as an (n, dim) float32 array."""
    flat = column.combine_chunks().flatten().to_numpy(zero_copy_only=False) if len(column) else np.zeros(0)
    return np.asarray(flat, np.float32).reshape(-1, dim)
