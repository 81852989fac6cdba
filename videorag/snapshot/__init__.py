"""The search snapshot: the corpus a searcher needs, saved beside the index as memory-mapped
arrays, so opening an index costs no work proportional to its size and needs no LanceDB.

Layout (under the index directory, or for an index on S3 under its local cache folder:
`location.local`): `search/CURRENT` names the live snapshot folder; in it `manifest.json` (the index
change token it was made at, video ids and paths, per level its size and ANN index) and, per
level (segment, chunk, video, and caption when the index has frame captions), `.npy` arrays:
times, owners, unit vectors, texts (UTF-8 blob + offsets), BM25 postings (`BM25.arrays`; for the
video level also its phrase-bigram BM25, which `best` reads) and, past `ann_min_rows`, an ANN
index (`ann`: IVF-Flat, or IVF-PQ on very large levels); the frame vectors and each video's
visual vector (an index with a visual backend); CARVE's chunk views (`views.*`, `view.NAME.*`);
the word timings (`words.*`: an index of format 2), which citations narrow to; the chapters
(`chapters.*`: format 4), which overviews are made of; the rows of the
videos whose vectors are the multilingual embedder's (`multilingual` in the manifest) and each
video's language (`languages`, null when all are English).
A search reads nothing else — no LanceDB on the query path.

A snapshot is fresh while the index's change marker (`.changed`, replaced by every write) holds
the token it was made at (and this version's format and tokeniser made it). Ingest and
`videorag optimize` write a new one; a search that finds it stale builds the corpus from the index
and saves it (a new folder, then `CURRENT` replaced, so a reader never sees half a snapshot)."""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ..analysis import ANALYZER, bigrams, tokenize
from ..config import SearchConfig
from ..index.location import locate
from ..index.meta import CHANGED_FILE
from ..lexical.bm25 import ARRAYS, BM25
from ..vectors import ann as ann_kinds
from ..vectors.ivf import Vectors
from ..vectors.mapped import RowFile, mapped
from .corpus import Corpus, FrameVectors, Level
from .views import ChunkViews, NoFrames, View
from .words import Words

log = logging.getLogger(__name__)

FORMAT = 6  # 3: BM25 postings in impact order, with their average length; 4: word timings; 5: multilingual rows;
# 6: chapters
FOLDER = "search"
LEVELS = ("segment", "chunk", "video")
FRAME_ARRAYS = ("owner", "times", "vectors")
WORD_ARRAYS = ("owner", "starts", "ends")
TIMED = ("words", "chapters")  # the corpus's timed texts (`snapshot.words.Words`), saved alike


def token(index) -> str:
    """The change token of the index at `index` (a path, URI or location): the content of its
    change marker; '' before any write."""
    try:
        return locate(index).read(CHANGED_FILE).strip()
    except OSError:
        return ""


def fresh(index, found: dict | None = None) -> bool:
    """Whether the index's snapshot (or the manifest `found`) was made at its current state."""
    found = manifest(index) if found is None else found
    return found is not None and found["token"] == token(index)


def describe(level: dict) -> str:
    """How a level of a manifest is searched: "exact" or e.g. "ivf-flat (1000 cells)"."""
    ann = level["ann"]
    return f"{ann['kind']} ({ann['cells']} cells)" if ann else "exact"


class Texts(Sequence):
    """Texts read on demand from a UTF-8 blob and offsets (both memory-mapped)."""

    def __init__(self, blob: np.ndarray, offsets: np.ndarray):
        self.blob, self.offsets = blob, offsets

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = int(i) + (len(self) if int(i) < 0 else 0)
        return bytes(self.blob[self.offsets[i] : self.offsets[i + 1]]).decode("utf-8")


class Ragged(Sequence):
    """Tuples of floats read on demand from a flat array and offsets (both memory-mapped)."""

    def __init__(self, flat: np.ndarray, offsets: np.ndarray):
        self.flat, self.offsets = flat, offsets

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i) -> tuple[float, ...]:
        return tuple(self.flat[self.offsets[i] : self.offsets[i + 1]].tolist())


def manifest(index) -> dict | None:
    """The live snapshot's manifest (with its folder under `folder`), None when there is none."""
    root = locate(index).local / FOLDER
    try:
        folder = root / (root / "CURRENT").read_text().strip()
        found = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return None
    current = found.get("format") == FORMAT and found.get("analyzer") == ANALYZER
    return {**found, "folder": str(folder)} if current else None


def load(index, fresh_token: str) -> Corpus | None:
    """The snapshot's corpus when it was made at `fresh_token`, else None."""
    found = manifest(index)
    if found is None or found["token"] != fresh_token:
        return None
    folder = Path(found["folder"])
    try:
        levels = {name: load_level(folder, name, found["levels"][name]) for name in found["levels"]}
        visual = mapped(folder / "visual.npy") if found.get("visual") else None
        frames = (
            FrameVectors(*(mapped(folder / f"frame.{key}.npy") for key in FRAME_ARRAYS))
            if found.get("frames")
            else None
        )
        corpus = Corpus(
            found["video_ids"],
            found["paths"],
            levels["segment"],
            levels["chunk"],
            levels["video"],
            visual,
            levels.get("caption"),
            frames,
            chunk_seconds=found["chunk_seconds"],
            embed_model=found.get("embed_model", ""),
        )
        if found.get("views") is not None:
            corpus.views = _load_views(folder, found["views"], corpus.chunks)
        corpus.languages = found.get("languages")
        if found.get("multilingual"):
            corpus.multilingual = np.zeros(len(corpus.video_ids), bool)
            corpus.multilingual[found["multilingual"]] = True
        corpus.words, corpus.chapters = (_load_timed(folder, name) if found.get(name) else None for name in TIMED)
    except (OSError, ValueError, KeyError) as exc:  # replaced by a newer snapshot while being read
        log.info("search snapshot %s unreadable (%s)", folder, exc)
        return None
    return corpus


def load_level(folder: Path, name: str, info: dict) -> Level:
    """Level `name` mapped from `folder` (`info`: its manifest entry; the level knows its folder)."""
    array = lambda key: mapped(folder / f"{name}.{key}.npy")  # noqa: E731
    ann, vectors = ann_kinds.load(info.get("ann"), folder, name, array)
    level = Level(
        array("owner"),
        array("starts"),
        array("ends"),
        _load_texts(folder, name),
        vectors,
        _load_bm25(folder, name),
        array("block_starts"),
        array("block_owner"),
        ann,
        folder,
    )
    if info.get("bigrams"):
        level.__dict__["bigram_bm25"] = _load_bm25(folder, f"{name}.bigram", bigrams)  # the cached property
    return level


def _load_bm25(folder: Path, name: str, analyzer=tokenize) -> BM25:
    vocab = json.loads((folder / f"{name}.vocab.json").read_text())
    return BM25.from_arrays(
        {key: mapped(folder / f"{name}.{key}.npy") for key in ARRAYS}, {t: i for i, t in enumerate(vocab)}, analyzer
    )


def save_bm25(folder: Path, name: str, bm25: BM25) -> None:
    for key, value in bm25.arrays().items():
        np.save(folder / f"{name}.{key}.npy", np.asarray(value))
    (folder / f"{name}.vocab.json").write_text(json.dumps(sorted(bm25.vocab, key=bm25.vocab.__getitem__)))


def save(
    corpus: Corpus | Callable[[Path], Corpus],
    index,
    made_token: str,
    ann_min_rows: int,
    compress_rows: int = SearchConfig.ann_compress_rows,
) -> dict:
    """Write `corpus` as the index's snapshot made at `made_token` (or the corpus that
    `corpus(FOLDER)` builds, whose levels may already be written in the new snapshot's folder:
    `videorag.snapshot.stream`); levels of ≥ `ann_min_rows` units get an ANN index (also attached
    to the corpus): IVF-Flat, or from `compress_rows` on IVF-PQ (`ann.choose`). Returns the
    manifest."""
    start = time.perf_counter()
    root = locate(index).local / FOLDER
    root.mkdir(parents=True, exist_ok=True)
    name = f"s{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:8]}"
    tmp = root / f".tmp-{name}"
    tmp.mkdir()
    if callable(corpus):
        corpus = corpus(tmp)
    read = round(time.perf_counter() - start, 1)
    levels = _save_levels(tmp, corpus, ann_min_rows, compress_rows)
    if corpus.visual is not None:
        np.save(tmp / "visual.npy", np.asarray(corpus.visual, np.float32))
    if corpus.frames is not None:
        for key in FRAME_ARRAYS:
            np.save(tmp / f"frame.{key}.npy", np.asarray(getattr(corpus.frames, key)))
    for kind in TIMED:
        if (timed := getattr(corpus, kind)) is not None:
            for key in WORD_ARRAYS:
                np.save(tmp / f"{kind}.{key}.npy", np.asarray(getattr(timed, key)))
            _save_texts(tmp, kind, timed.texts)
    found = {
        "format": FORMAT,
        "analyzer": ANALYZER,
        "token": made_token,
        "made": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "video_ids": list(corpus.video_ids),
        "paths": list(corpus.paths),
        "levels": levels,
        "visual": corpus.visual is not None,
        "frames": corpus.frames is not None,
        "words": corpus.words is not None,
        "chapters": corpus.chapters is not None,
        "multilingual": [] if corpus.multilingual is None else np.flatnonzero(corpus.multilingual).tolist(),
        "languages": corpus.languages,
        "chunk_seconds": corpus.chunk_seconds,
        "embed_model": corpus.embed_model,
        "views": _save_views(tmp, corpus.chunk_views),
        "seconds": round(time.perf_counter() - start, 3),
        "read_seconds": read,  # the corpus read from the index (and its streamed levels written)
    }
    (tmp / "manifest.json").write_text(json.dumps(found))
    os.replace(tmp, root / name)
    _point(root, name)
    return found


def _save_levels(tmp: Path, corpus: Corpus, ann_min_rows: int, compress_rows: int) -> dict:
    """Every text level of `corpus` saved under `tmp`, with its ANN index where it is large
    enough (`ann.choose`); their manifest entries by name."""
    named = dict(zip(LEVELS, (corpus.segments, corpus.chunks, corpus.videos), strict=True))
    if corpus.captions is not None:
        named["caption"] = corpus.captions
    levels = {}
    for level_name, level in named.items():
        begun = time.perf_counter()
        kind = ann_kinds.choose(len(level), ann_min_rows, compress_rows, len(corpus.segments))
        if level.ann is None and kind is not None:
            here = level.folder == tmp  # its vectors are read from the file, not mapped
            level.ann = ann_kinds.build(kind, RowFile(tmp / f"{level_name}.vectors.npy") if here else level.vectors)
        levels[level_name] = _save_level(tmp, level_name, level, bigram=level_name == "video")
        levels[level_name]["seconds"] = round(time.perf_counter() - begun, 1)  # its ANN index and arrays
        log.info(
            "search snapshot: %s level (%d units, %s) saved in %.1f s",
            level_name,
            len(level),
            describe(levels[level_name]),
            levels[level_name]["seconds"],
        )
    return levels


def _save_level(folder: Path, name: str, level: Level, bigram: bool = False) -> dict:
    """One level's arrays (those of a level written here already: its ANN index alone); with
    `bigram`, its phrase BM25 too (built now, not on a first query)."""
    here = level.folder == folder
    arrays: dict[str, Vectors] = {}
    if not here:
        _save_texts(folder, name, level.texts)
        save_bm25(folder, name, level.bm25)
        arrays = {key: getattr(level, key) for key in ("owner", "starts", "ends", "block_starts", "block_owner")}
    if bigram:
        save_bm25(folder, f"{name}.bigram", level.bigram_bm25)
    ann = level.ann
    arrays.update(ann.stored(folder, name, level.vectors) if ann is not None else {"vectors": level.vectors})
    for key, value in arrays.items():
        if not (here and value is level.vectors):
            _put(folder / f"{name}.{key}.npy", value)
    if here and "vectors" not in arrays:  # the index holds them (IVF-Flat, in cell order): no second copy
        (folder / f"{name}.vectors.npy").unlink()
    found = {"kind": ann.kind, "cells": ann.cells} if ann is not None else None
    return {"rows": len(level), "ann": found, "bigrams": bigram}


def _put(path: Path, value) -> None:
    """`value` saved at `path` by a rename (a file mapped meanwhile keeps its old content)."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as handle:
        np.save(handle, np.asarray(value))
    os.replace(tmp, path)


def _save_views(folder: Path, views: ChunkViews) -> dict:
    """CARVE's chunks and views: the transcript view as rows of the chunk level, the others whole."""
    for key in ("video", "starts", "ends"):
        np.save(folder / f"views.{key}.npy", np.asarray(getattr(views, key)))
    for name, view in views.views.items():
        np.save(folder / f"view.{name}.chunk.npy", view.chunk)
        if name == "text-clip":
            continue
        np.save(folder / f"view.{name}.vectors.npy", np.asarray(view.vectors, np.float32))
        _save_texts(folder, f"view.{name}", view.texts)
        flat = [t for times in view.frames for t in times]
        np.save(folder / f"view.{name}.frames.npy", np.asarray(flat, np.float64))
        np.save(
            folder / f"view.{name}.frame_offsets.npy",
            np.r_[0, np.cumsum([len(times) for times in view.frames], dtype=np.int64)],
        )
    return {"names": list(views.views), "models": views.models}


def _load_views(folder: Path, info: dict, chunks: Level) -> ChunkViews:
    views = {}
    for name in info["names"]:
        chunk = mapped(folder / f"view.{name}.chunk.npy")
        if name == "text-clip":
            views[name] = View(name, chunk, chunks.vectors, chunks.texts, NoFrames(len(chunks)))
            continue
        flat, offsets = mapped(folder / f"view.{name}.frames.npy"), mapped(folder / f"view.{name}.frame_offsets.npy")
        views[name] = View(
            name,
            chunk,
            mapped(folder / f"view.{name}.vectors.npy"),
            _load_texts(folder, f"view.{name}"),
            Ragged(flat, offsets),
        )
    video, starts, ends = (mapped(folder / f"views.{key}.npy") for key in ("video", "starts", "ends"))
    return ChunkViews(video, starts, ends, views, info["models"])


def _save_texts(folder: Path, name: str, texts) -> None:
    blob = [t.encode("utf-8") for t in texts]
    np.save(folder / f"{name}.offsets.npy", np.r_[0, np.cumsum([len(b) for b in blob], dtype=np.int64)])
    np.save(folder / f"{name}.texts.npy", np.frombuffer(b"".join(blob), np.uint8))


def _load_timed(folder: Path, name: str) -> Words:
    owner, starts, ends = (mapped(folder / f"{name}.{key}.npy") for key in WORD_ARRAYS)
    return Words(owner, starts, ends, _load_texts(folder, name))


def _load_texts(folder: Path, name: str) -> Texts:
    return Texts(mapped(folder / f"{name}.texts.npy"), mapped(folder / f"{name}.offsets.npy"))


def _point(root: Path, name: str) -> None:
    """Make `name` the live snapshot; earlier ones are deleted (readers that mapped their files
    keep reading them: the data lives until they close)."""
    tmp = root / f".CURRENT.{os.getpid()}.tmp"
    tmp.write_text(name + "\n")
    os.replace(tmp, root / "CURRENT")
    for old in root.iterdir():
        if old.is_dir() and old.name != name and _replaced(old):
            shutil.rmtree(old, ignore_errors=True)


def _replaced(folder: Path) -> bool:
    """An earlier snapshot, or one a crash left half-written over an hour ago (another process's
    `.tmp-*` being written now is kept)."""
    if not folder.name.startswith(".tmp-"):
        return True
    try:
        return time.time() - folder.stat().st_mtime > 3600
    except OSError:
        return False
