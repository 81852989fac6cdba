"""LanceDB-backed index directory.

Layout: `videorag.json` (format, the models that made the embeddings) and three tables:
`videos` (one row per video, written last, so a video exists only once all its rows do),
`units` (ASR / subtitle segments and fixed-window chunks, with embeddings) and `frames`
(sampled frames as JPEG with timestamps); with the visual path also `frame_vectors` and
`visual`, with a captioner also `captions` (a text per sampled frame, embedded by the text
embedder: RAG-Adapter's CaptionsDB). Rows of a video missing from `videos` are orphans of an
interrupted ingest; they are ignored by readers and removed by the next ingest. Every write holds
the index's writer lock (`lock.py`); readers see other processes' commits after `refresh()`.
"""
from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import IndexError_
from ..types import Caption, ChunkView, Frame, Segment
from .location import locate
from .meta import CHANGED_FILE, FORMAT, META_FILE, check_embedder, open_meta, read_meta, write_meta

log = logging.getLogger(__name__)



@dataclass
class VideoRecord:
    """Everything ingest produces for one video."""

    video_id: str
    path: str
    size: int
    mtime_ns: int
    duration: float
    source: str                      # "asr" or "subtitles"
    segments: list[Segment]
    segment_vectors: np.ndarray
    chunks: list[Segment]
    chunk_vectors: np.ndarray
    frames: list[Frame] = field(default_factory=list)
    frame_vectors: np.ndarray | None = None   # (len(frames), visual dim) when the visual path is on
    visual_frames: list[float] = field(default_factory=list)  # times of the frames behind visual_vector
    visual_vector: np.ndarray | None = None
    captions: list[Caption] = field(default_factory=list)  # when a captioner is on
    caption_vectors: np.ndarray | None = None  # (len(captions), text dim)
    chunk_views: list[ChunkView] = field(default_factory=list)  # CARVE's visual views, per chunk

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.segments)


def _visual_schemas(dim: int) -> dict[str, pa.Schema]:
    vector = pa.list_(pa.float32(), dim)
    return {"frame_vectors": pa.schema([("video_id", pa.string()), ("t", pa.float64()), ("vector", vector)]),
            "visual": pa.schema([("video_id", pa.string()), ("frames", pa.list_(pa.float64())),
                                 ("vector", vector)])}


def _view_schemas(dim: int) -> dict[str, pa.Schema]:
    """CARVE's visual views per chunk: keyframes (times, flattened vectors) and a clip vector."""
    return {"chunk_views": pa.schema([("video_id", pa.string()), ("start", pa.float64()), ("end", pa.float64()),
                                      ("keyframes", pa.list_(pa.float64())),
                                      ("keyframe_vectors", pa.list_(pa.float32())),
                                      ("vector", pa.list_(pa.float32(), dim))])}


def _caption_schemas(dim: int) -> dict[str, pa.Schema]:
    return {"captions": pa.schema([("video_id", pa.string()), ("t", pa.float64()), ("text", pa.string()),
                                   ("vector", pa.list_(pa.float32(), dim))])}


def _schemas(dim: int) -> dict[str, pa.Schema]:
    vector = pa.list_(pa.float32(), dim)
    return {
        "videos": pa.schema([("video_id", pa.string()), ("path", pa.string()), ("size", pa.int64()),
                             ("mtime_ns", pa.int64()), ("duration", pa.float64()),
                             ("source", pa.string()), ("text", pa.large_string()), ("vector", vector)]),
        "units": pa.schema([("video_id", pa.string()), ("kind", pa.string()), ("idx", pa.int32()),
                            ("start", pa.float64()), ("end", pa.float64()), ("text", pa.string()),
                            ("vector", vector)]),
        "frames": pa.schema([("video_id", pa.string()), ("t", pa.float64()), ("jpeg", pa.binary())]),
    }


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class VideoIndex:
    """An index directory. `VideoIndex.create(dir, embed_model, dim)` or `VideoIndex.open(dir)`."""

    def __init__(self, location, meta: dict, lock_wait: float | None = None):
        import lancedb

        self.location = location   # `location.LocalDir` or `location.ObjectStore`
        self.meta = meta
        self.lock_wait = lock_wait  # seconds a write waits for another writer; None = no limit
        self._db = lancedb.connect(location.uri, storage_options=location.storage_options)
        self._tables = {}
        self._seen = (location.stamp(CHANGED_FILE), location.stamp(META_FILE))
        self._open_all()

    def _open_all(self) -> None:
        self._open_tables(_schemas(self.meta["dim"]))
        if "visual_dim" in self.meta:
            self._open_tables(_visual_schemas(self.meta["visual_dim"]))
        if "captioner" in self.meta:
            self._open_tables(_caption_schemas(self.meta["dim"]))
        if self.has_chunk_views:
            self._open_tables(_view_schemas(self.meta["visual_dim"]))

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
    def has_captions(self) -> bool:
        """Whether the index was built with a captioner (its `captions` table exists)."""
        return "captioner" in self.meta

    # -- opening ---------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path, lock_wait: float | None = None) -> "VideoIndex":
        """Open the index at a directory or `s3://bucket/prefix`."""
        location = locate(path)
        return cls(location, open_meta(location), lock_wait)

    @classmethod
    def open_or_create(cls, path: str | Path, embed_model: str, dim: int, fingerprint: str | None = None,
                       lock_wait: float | None = None, **extra) -> "VideoIndex":
        """Open an index for writing (its tables are created first, then recorded)."""
        location = locate(path)
        location.create()
        with location.lock().hold(lock_wait):
            if location.exists(META_FILE):
                index = cls.open(location, lock_wait)
                index.check_embedder(embed_model, dim, fingerprint)
                return index
            meta = {"format": FORMAT, "embed_model": embed_model, "dim": int(dim),
                    "embed_fingerprint": fingerprint, **extra}
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
                self._open_tables(_visual_schemas(int(dim)))
                self._record(visual_backend=backend, visual_spec=spec, visual_model=model_name,
                             visual_dim=int(dim))
            if clip_model and not self.has_chunk_views:
                self._open_tables(_view_schemas(int(dim)))
                self._record(clip_model=clip_model)

    def check_visual(self, model_name: str, dim: int) -> None:
        if (model_name, int(dim)) != (self.meta.get("visual_model"), self.meta.get("visual_dim")):
            raise IndexError_(
                f"index {self.location} holds frame embeddings of {self.meta.get('visual_model')!r} "
                f"(dim {self.meta.get('visual_dim')}), not {model_name!r} (dim {dim})",
                f"use --visual-model {self.meta.get('visual_spec')!r}, or index into a new directory")

    def enable_captions(self, name: str, model_name: str) -> None:
        """Record the captioner (first time) or check it is the one the index was built with."""
        if self.has_captions:
            self.check_captioner(name, model_name)
            return
        with self.writer():
            self._open_tables(_caption_schemas(self.meta["dim"]))
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
                "or index into a new directory")

    def check_embedder(self, model_name: str, dim: int, fingerprint: str | None = None) -> None:
        check_embedder(self.location, self.meta, model_name, dim, fingerprint)

    def record_fingerprint(self, fingerprint: str | None) -> None:
        """Record the text embedder's fingerprint in an index made before fingerprints existed."""
        if fingerprint and not self.meta.get("embed_fingerprint"):
            with self.writer():
                self._record(embed_fingerprint=fingerprint)

    # -- writing ---------------------------------------------------------------------------
    def add(self, record: VideoRecord) -> None:
        """Write one video; its `videos` row goes last, so a crash leaves only orphans. Idempotent:
        the video's earlier rows are replaced and its `videos` row is keyed by id."""
        self.add_many([record])

    def add_many(self, records: list[VideoRecord]) -> None:
        """`add` for several videos at once: one commit per table (their `videos` rows last)."""
        if any(r.captions for r in records) and not self.has_captions:
            raise IndexError_(f"index {self.location} has no captions table",
                              "call VideoIndex.enable_captions(name, model) before adding captions")
        if records:
            with self.writer():
                self._add(records)

    def _add(self, records: list[VideoRecord]) -> None:
        self._remove([r.video_id for r in records])
        self._tables["units"].add(pa.concat_tables([self._unit_rows(r) for r in records]))
        for record in records:
            if record.frames:
                self._tables["frames"].add(pa.table({
                    "video_id": [record.video_id] * len(record.frames),
                    "t": [f.t for f in record.frames], "jpeg": [f.jpeg for f in record.frames]},
                    schema=self._tables["frames"].schema))
            if record.frame_vectors is not None:
                self._add_visual(record)
            if record.captions:
                self._add_captions(record)
            if record.chunk_views and self.has_chunk_views:
                self._add_chunk_views(record)
        rows = pa.concat_tables([self._video_row(r) for r in records])
        (self._tables["videos"].merge_insert("video_id").when_matched_update_all()
         .when_not_matched_insert_all().execute(rows))

    def _video_row(self, record: VideoRecord) -> pa.Table:
        mean = record.chunk_vectors.mean(axis=0) if len(record.chunk_vectors) else np.zeros(self.meta["dim"])
        mean = mean / max(float(np.linalg.norm(mean)), 1e-12)
        return pa.table({
            "video_id": [record.video_id], "path": [record.path], "size": [record.size],
            "mtime_ns": [record.mtime_ns], "duration": [record.duration], "source": [record.source],
            "text": [record.text], "vector": [mean.astype(np.float32).tolist()]},
            schema=self._tables["videos"].schema)

    def _add_visual(self, record: VideoRecord) -> None:
        dim = self.meta["visual_dim"]
        flat = np.asarray(record.frame_vectors, np.float32).reshape(-1)
        self._tables["frame_vectors"].add(pa.table({
            "video_id": [record.video_id] * len(record.frames), "t": [f.t for f in record.frames],
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float32()), dim)},
            schema=self._tables["frame_vectors"].schema))
        self.set_visual(record.video_id, record.visual_frames, record.visual_vector)

    def _add_captions(self, record: VideoRecord) -> None:
        dim = self.meta["dim"]
        flat = np.asarray(record.caption_vectors, np.float32).reshape(len(record.captions) * dim)
        self._tables["captions"].add(pa.table({
            "video_id": [record.video_id] * len(record.captions), "t": [c.t for c in record.captions],
            "text": [c.text for c in record.captions],
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float32()), dim)},
            schema=self._tables["captions"].schema))

    def _add_chunk_views(self, record: VideoRecord) -> None:
        views = record.chunk_views
        dim = self.meta["visual_dim"]
        flat = np.asarray(np.stack([v.vector for v in views]), np.float32).reshape(-1)
        self._tables["chunk_views"].add(pa.table({
            "video_id": [record.video_id] * len(views), "start": [v.start for v in views],
            "end": [v.end for v in views], "keyframes": [list(map(float, v.keyframes)) for v in views],
            "keyframe_vectors": [np.asarray(v.keyframe_vectors, np.float32).reshape(-1).tolist() for v in views],
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float32()), dim)},
            schema=self._tables["chunk_views"].schema))

    def set_visual(self, video_id: str, frames: list[float], vector: np.ndarray) -> None:
        """(Re)place a video's visual representation: the frames chosen for retrieval, their vector."""
        with self.writer():
            self._tables["visual"].delete(f"video_id = {_quote(video_id)}")
            self._tables["visual"].add(pa.table({
                "video_id": [video_id], "frames": [list(map(float, frames))],
                "vector": [np.asarray(vector, np.float32).tolist()]}, schema=self._tables["visual"].schema))

    def _unit_rows(self, record: VideoRecord) -> pa.Table:
        units = [("segment", record.segments, record.segment_vectors),
                 ("chunk", record.chunks, record.chunk_vectors)]
        rows = {k: [] for k in ("kind", "idx", "start", "end", "text")}
        vectors = []
        for kind, segs, vecs in units:
            for i, seg in enumerate(segs):
                for key, value in zip(rows, (kind, i, seg.start, seg.end, seg.text)):
                    rows[key].append(value)
            vectors.append(np.asarray(vecs, np.float32).reshape(len(segs), self.meta["dim"]))
        flat = np.concatenate(vectors).reshape(-1)
        vector = pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float32()), self.meta["dim"])
        return pa.table({"video_id": [record.video_id] * len(rows["kind"]), **rows, "vector": vector},
                        schema=self._tables["units"].schema)

    def relocate(self, video_id: str, path: str, size: int, mtime_ns: int) -> None:
        with self.writer():
            self._tables["videos"].update(where=f"video_id = {_quote(video_id)}",
                                          values={"path": path, "size": size, "mtime_ns": mtime_ns})

    def remove(self, video_id: str) -> None:
        """Drop a video and all its rows (nothing happens when it is not indexed)."""
        self._remove([video_id])

    def _remove(self, video_ids: list[str]) -> None:
        where = "video_id IN (" + ", ".join(_quote(v) for v in sorted(set(video_ids))) + ")"
        with self.writer():
            self._tables["videos"].delete(where)  # first: its other rows become orphans, never dangling
            for name in self._tables:
                if name != "videos":
                    self._tables[name].delete(where)

    def orphans(self) -> dict[str, set[str]]:
        """{table: ids of videos with rows there but no `videos` row} (an interrupted write)."""
        live = self.video_ids()
        found = {}
        for name in self._tables:
            if name != "videos":
                ids = self._tables[name].search().select(["video_id"]).to_arrow()["video_id"]
                found[name] = set(pc.unique(ids).to_pylist()) - live
        return {name: ids for name, ids in found.items() if ids}

    def remove_orphans(self) -> int:
        """Drop the rows of unfinished videos (under the writer lock: never another run's)."""
        with self.writer():
            orphans = set().union(*self.orphans().values())
            if orphans:
                where = "video_id IN (" + ", ".join(_quote(v) for v in sorted(orphans)) + ")"
                for name in self._tables:
                    if name != "videos":
                        self._tables[name].delete(where)
        return len(orphans)

    def keep_one_row(self, video_id: str) -> None:
        """Collapse duplicate `videos` rows of one id into one (the last written)."""
        where = f"video_id = {_quote(video_id)}"
        with self.writer():
            rows = self._tables["videos"].search().where(where).to_arrow()
            self._tables["videos"].delete(where)
            self._tables["videos"].add(rows.slice(rows.num_rows - 1))

    def row_ids(self, table: str) -> pa.Array:
        """The video_id column of one table (one entry per row; absent tables give none)."""
        if table not in self._tables:
            return pa.array([], pa.string())
        return self._tables[table].search().select(["video_id"]).to_arrow()["video_id"].combine_chunks()

    def unit_kinds(self) -> set[tuple[str, str]]:
        """The (video_id, kind) pairs present in `units`."""
        rows = self._tables["units"].search().select(["video_id", "kind"]).to_arrow()
        return set(zip(rows["video_id"].to_pylist(), rows["kind"].to_pylist()))

    def compact(self) -> None:
        with self.writer():
            for table in self._tables.values():
                try:
                    table.optimize()
                except Exception as exc:  # compaction is an optimisation; never fail ingest on it
                    log.info("compaction of %s skipped: %s", table.name, exc)

    # -- reading ---------------------------------------------------------------------------
    def videos(self, columns: list[str] | None = None) -> pa.Table:
        query = self._tables["videos"].search()
        return (query.select(columns) if columns else query).to_arrow()

    def video_ids(self) -> set[str]:
        return set(self.videos(["video_id"])["video_id"].to_pylist())

    def units(self, live: set[str] | None = None) -> pa.Table:
        """All segment and chunk rows of indexed videos (orphans excluded), or of the videos in
        `live` (a reader building from one `videos` read passes its ids: a video committed
        meanwhile is then left out, not half in)."""
        live = sorted(self.video_ids() if live is None else live)
        if len(live) <= 500:   # a few videos (an incremental snapshot): filtered in the scan
            if not live:
                return self._tables["units"].schema.empty_table()
            where = "video_id IN (" + ", ".join(_quote(v) for v in live) + ")"
            return self._tables["units"].search().where(where).to_arrow()
        table = self._tables["units"].to_arrow()
        return table.filter(pc.is_in(table["video_id"], value_set=pa.array(live, pa.string())))

    def segments(self, video_id: str, kind: str = "segment") -> list[Segment]:
        rows = (self._tables["units"].search()
                .where(f"video_id = {_quote(video_id)} AND kind = {_quote(kind)}")
                .select(["idx", "start", "end", "text"]).to_arrow().to_pylist())
        return [Segment(r["start"], r["end"], r["text"]) for r in sorted(rows, key=lambda r: r["idx"])]

    def frames(self, video_id: str) -> list[Frame]:
        rows = (self._tables["frames"].search().where(f"video_id = {_quote(video_id)}")
                .select(["t", "jpeg"]).to_arrow().to_pylist())
        return [Frame(r["t"], r["jpeg"]) for r in sorted(rows, key=lambda r: r["t"])]

    def frame_near(self, video_id: str, t: float) -> Frame | None:
        """The sampled frame of a video nearest to `t` seconds (None when it has none): the
        timestamps are read first, then that one frame's JPEG."""
        base = f"video_id = {_quote(video_id)}"
        times = self._tables["frames"].search().where(base).select(["t"]).to_arrow()["t"].to_numpy()
        if not len(times):
            return None
        nearest = float(times[np.argmin(np.abs(times - t))])
        row = (self._tables["frames"].search().where(f"{base} AND t = {nearest!r}")
               .select(["t", "jpeg"]).limit(1).to_arrow().to_pylist())
        return Frame(row[0]["t"], row[0]["jpeg"]) if row else None

    def captions(self, video_id: str | None = None) -> pa.Table:
        """Caption rows (video_id, t, text, vector) of indexed videos, or of one video, sorted by
        (video_id, t); orphans excluded; empty when the index has no captioner."""
        if not self.has_captions:
            return _caption_schemas(self.meta["dim"])["captions"].empty_table()
        query = self._tables["captions"].search()
        if video_id is not None:
            query = query.where(f"video_id = {_quote(video_id)}")
        table = query.select(["video_id", "t", "text", "vector"]).to_arrow()
        live = pa.array(sorted(self.video_ids()), pa.string())
        table = table.filter(pc.is_in(table["video_id"], value_set=live))
        return table.sort_by([("video_id", "ascending"), ("t", "ascending")])

    def chunk_views(self, live: set[str]) -> pa.Table:
        """CARVE's visual view rows of the videos in `live` (empty without them)."""
        if not self.has_chunk_views:
            return _view_schemas(self.meta["visual_dim"])["chunk_views"].empty_table() if self.has_visual \
                else pa.table({"video_id": pa.array([], pa.string())})
        table = self._tables["chunk_views"].to_arrow()
        return table.filter(pc.is_in(table["video_id"], value_set=pa.array(sorted(live), pa.string())))

    def visual_vectors(self, live: set[str] | None = None) -> dict[str, np.ndarray]:
        """{video_id: visual vector} of indexed videos, or of those in `live` (empty without the
        visual path)."""
        if not self.has_visual:
            return {}
        rows = self._tables["visual"].search().select(["video_id", "vector"]).to_arrow()
        live = self.video_ids() if live is None else live
        vectors = np.asarray(rows["vector"].combine_chunks().flatten().to_numpy(zero_copy_only=False),
                             np.float32).reshape(-1, self.meta["visual_dim"]) if rows.num_rows else []
        return {v: vectors[i] for i, v in enumerate(rows["video_id"].to_pylist()) if v in live}

    def frame_vectors(self, video_id: str) -> tuple[np.ndarray, np.ndarray]:
        """(times, (n, visual dim) vectors) of a video's sampled frames, time order."""
        if not self.has_visual:
            return np.zeros(0), np.zeros((0, 0), np.float32)
        rows = (self._tables["frame_vectors"].search().where(f"video_id = {_quote(video_id)}")
                .select(["t", "vector"]).to_arrow())
        times = rows["t"].to_numpy()
        vectors = np.asarray(rows["vector"].combine_chunks().flatten().to_numpy(zero_copy_only=False),
                             np.float32).reshape(len(times), -1)
        order = np.argsort(times, kind="stable")
        return times[order], vectors[order]

    def version(self) -> tuple[int, ...]:
        return tuple(t.version for t in list(self._tables.values()))

    def stats(self) -> dict:
        videos = self.videos(["duration", "source"])
        return {"path": str(self.location), "videos": videos.num_rows,
                "hours": round(sum(videos["duration"].to_pylist()) / 3600, 3),
                "units": self._tables["units"].count_rows(),
                "frames": self._tables["frames"].count_rows(),
                "captions": self._tables["captions"].count_rows() if self.has_captions else 0,
                "disk_bytes": self.location.disk_bytes(),
                "models": {k: v for k, v in self.meta.items() if k != "format"}}
