"""LanceDB-backed index directory.

Layout: `videorag.json` (format, the models that made the embeddings) and three tables:
`videos` (one row per video, written last, so a video exists only once all its rows do),
`units` (ASR / subtitle segments and fixed-window chunks, with embeddings) and `frames`
(sampled frames as JPEG with timestamps); with the visual path also `frame_vectors` and
`visual`, with a captioner also `captions` (a text per sampled frame, embedded by the text
embedder: RAG-Adapter's CaptionsDB), from format 2 on `words` (each video's recognised words and
their times), from format 3 on `languages` (each video's), from format 4 on `chapters` (each video's
topics; an older index is read too and gains the tables with its next video, and chapters for its
older videos with `videorag optimize`). Rows
of a video missing from `videos` are orphans of an interrupted ingest; they are ignored by readers
and removed by the next ingest. Every write holds the index's writer lock (`lock.py`); readers
see other processes' commits after `refresh()`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa

from ..errors import IndexError_
from .location import Location, locate
from .meta import CHANGED_FILE, FORMAT, META_FILE, check_embedder, check_visual, open_meta, read_meta, write_meta
from .reads import Reads
from .tables import (
    VideoRecord,
    caption_schemas,
    chapter_schemas,
    core_schemas,
    language_schemas,
    view_schemas,
    visual_schemas,
    word_schemas,
)
from .writes import Writes

__all__ = ["VideoIndex", "VideoRecord"]


class VideoIndex(Reads, Writes):
    """An index directory. `VideoIndex.create(dir, embed_model, dim)` or `VideoIndex.open(dir)`.
    Opening, models and the writer lock here; reading in `Reads` (`reads.py`), writing in
    `Writes` (`writes.py`), the tables' schemas in `tables.py`."""

    def __init__(self, location: Location, meta: dict, lock_wait: float | None = None):
        import lancedb

        self.location = location
        self.meta = meta
        self.lock_wait = lock_wait  # seconds a write waits for another writer; None = no limit
        self._db = lancedb.connect(location.uri, storage_options=location.storage_options)
        self._tables = {}  # {name: lancedb Table}, declared in `IndexState`
        self._seen = (location.stamp(CHANGED_FILE), location.stamp(META_FILE))
        self._open_all()

    def _open_all(self) -> None:
        self._open_tables(core_schemas(self.meta["dim"]))
        if "visual_dim" in self.meta:
            self._open_tables(visual_schemas(self.meta["visual_dim"]))
        if "captioner" in self.meta:
            self._open_tables(caption_schemas(self.meta["dim"]))
        if self.has_chunk_views:
            self._open_tables(view_schemas(self.meta["visual_dim"]))
        if self.has_words:
            self._open_tables(word_schemas())
        if self.has_languages:
            self._open_tables(language_schemas())
        if self.has_chapters:
            self._open_tables(chapter_schemas())

    def _open_tables(self, schemas: dict[str, pa.Schema]) -> None:
        for name, schema in schemas.items():
            if name in self._tables:
                continue
            try:
                self._tables[name] = self._db.open_table(name)
            except (ValueError, FileNotFoundError):  # writers create tables before recording them
                self._tables[name] = self._db.create_table(name, schema=schema, exist_ok=True)

    @contextmanager
    def writer(self) -> Iterator[None]:
        """`with index.writer():` hold the index's writer lock (re-entrant); on leaving, mark
        the index changed for readers in other processes (see `refresh`)."""
        with self.location.lock().hold(self.lock_wait):
            try:
                yield
            finally:
                self.location.write(CHANGED_FILE, f"{time.time_ns()}-{os.getpid()}\n")  # a new token

    def refresh(self) -> None:
        """See what other processes committed since the last call: one `stat` when nothing
        changed; else the tables move to their latest versions (no data read) and tables or
        models recorded since are opened."""
        stamp = (self.location.stamp(CHANGED_FILE), self.location.stamp(META_FILE))
        if stamp == self._seen:
            return
        if stamp[1] != self._seen[1]:
            self.meta = read_meta(self.location)
            self._open_all()
        for table in list(self._tables.values()):  # another thread may open a table meanwhile
            table.checkout_latest()
        self._seen = stamp

    @property
    def has_visual(self) -> bool:
        return "visual_dim" in self.meta

    @property
    def has_chunk_views(self) -> bool:
        """Whether the index holds CARVE's visual views per chunk (built with a visual backend
        by this version; older visual indexes gain them on their next ingest)."""
        return "clip_model" in self.meta

    @property
    def has_words(self) -> bool:
        """Whether the index keeps word timings (format 2; a format-1 index gains its `words`
        table with the first video added that has them, its older videos cited by sentence)."""
        return self.meta.get("format", 1) >= 2

    @property
    def has_languages(self) -> bool:
        """Whether the index keeps each video's language (format 3; an older index's videos are
        taken as English)."""
        return self.meta.get("format", 1) >= 3

    @property
    def has_chapters(self) -> bool:
        """Whether the index keeps each video's chapters (format 4; an older index's videos have
        none until `videorag optimize` adds them)."""
        return self.meta.get("format", 1) >= 4

    def upgrade(self) -> None:
        """Create the tables of this version's format (`words`, `languages`, `chapters`) and record
        it (under the writer lock): an older index gains them with its next video."""
        with self.writer():
            if self.meta.get("format", 1) < FORMAT:
                self._open_tables(word_schemas() | language_schemas() | chapter_schemas())
                self._record(format=FORMAT)

    @property
    def has_captions(self) -> bool:
        """Whether the index was built with a captioner (its `captions` table exists)."""
        return "captioner" in self.meta

    # -- opening ---------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path | Location, lock_wait: float | None = None) -> VideoIndex:
        """Open the index at a directory or `s3://bucket/prefix`."""
        location = locate(path)
        return cls(location, open_meta(location), lock_wait)

    @classmethod
    def open_or_create(
        cls,
        path: str | Path,
        embed_model: str,
        dim: int,
        fingerprint: str | None = None,
        lock_wait: float | None = None,
        **extra,
    ) -> VideoIndex:
        """Open an index for writing (its tables are created first, then recorded)."""
        location = locate(path)
        location.create()
        with location.lock().hold(lock_wait):
            if location.exists(META_FILE):
                index = cls.open(location, lock_wait)
                index.check_embedder(embed_model, dim, fingerprint)
                return index
            meta = {
                "format": FORMAT,
                "embed_model": embed_model,
                "dim": int(dim),
                "embed_fingerprint": fingerprint,
                **extra,
            }
            index = cls(location, meta, lock_wait)
            write_meta(location, meta)
            return index

    def enable_visual(self, backend: str, spec: str, model_name: str, dim: int, clip_model: str = "") -> None:
        """Record the visual model (first time) or check it is the one the index was built with;
        `clip_model` names what makes the chunks' clip vectors (CARVE's visual-clip view)."""
        if self.has_visual:
            self.check_visual(model_name, dim)
            if self.has_chunk_views or not clip_model:
                return
        with self.writer():
            if not self.has_visual:
                self._open_tables(visual_schemas(int(dim)))
                self._record(visual_backend=backend, visual_spec=spec, visual_model=model_name, visual_dim=int(dim))
            if clip_model and not self.has_chunk_views:
                self._open_tables(view_schemas(int(dim)))
                self._record(clip_model=clip_model)

    def check_visual(self, model_name: str, dim: int) -> None:
        check_visual(self.location, self.meta, model_name, dim)

    def enable_captions(self, name: str, model_name: str) -> None:
        """Record the captioner (first time) or check it is the one the index was built with."""
        if self.has_captions:
            self.check_captioner(name, model_name)
            return
        with self.writer():
            self._open_tables(caption_schemas(self.meta["dim"]))
            self._record(captioner={"name": name, "model": model_name})

    def _record(self, **entries) -> None:
        """Add entries to the index's metadata file (under the writer lock)."""
        self.meta.update(entries)
        write_meta(self.location, self.meta)

    def check_captioner(self, name: str, model_name: str) -> None:
        known = self.meta.get("captioner") or {}
        if (name, model_name) != (known.get("name"), known.get("model")):
            raise IndexError_(
                f"index {self.location} holds captions of captioner {known.get('name')!r} "
                f"(model {known.get('model')!r}), not {name!r} (model {model_name!r})",
                f"use --captions {known.get('name')} --caption-model {known.get('model')!r}, "
                "or index into a new directory",
            )

    def check_embedder(self, model_name: str, dim: int, fingerprint: str | None = None) -> None:
        check_embedder(self.location, self.meta, model_name, dim, fingerprint)

    def record_fingerprint(self, fingerprint: str | None) -> None:
        """Record the text embedder's fingerprint in an index made before fingerprints existed."""
        if fingerprint and not self.meta.get("embed_fingerprint"):
            with self.writer():
                self._record(embed_fingerprint=fingerprint)
