"""Writing an index: videos added (their `videos` row last), replaced, relocated, removed;
orphans of interrupted writes cleaned; tables compacted. Every write holds the writer lock."""

from __future__ import annotations

import logging

import numpy as np
import pyarrow as pa

from ..errors import IndexError_
from ..models import E5_SMALL
from ..types import Chapter
from .state import IndexState
from .tables import VideoRecord, live_filter, quote

log = logging.getLogger(__name__)


class Writes(IndexState):
    """The writing half of `VideoIndex` (a mixin: it uses the index's `_tables`, `meta`,
    `location`, `writer()`, `has_captions`, `has_chunk_views` and `orphans()`)."""

    def add(self, record: VideoRecord) -> None:
        """Write one video; its `videos` row goes last, so a crash leaves only orphans. Idempotent:
        the video's earlier rows are replaced and its `videos` row is keyed by id."""
        self.add_many([record])

    def add_many(self, records: list[VideoRecord]) -> None:
        """`add` for several videos at once: one commit per table (their `videos` rows last)."""
        if any(r.captions for r in records) and not self.has_captions:
            raise IndexError_(
                f"index {self.location} has no captions table",
                "call VideoIndex.enable_captions(name, model) before adding captions",
            )
        if records and not self.has_chapters:
            self.upgrade()
        if records:
            with self.writer():
                self._add(records)

    def _add(self, records: list[VideoRecord]) -> None:
        self._remove([r.video_id for r in records])
        if any(r.multilingual for r in records) and "multilingual_model" not in self.meta:
            self._record(multilingual_model=E5_SMALL.name)  # `info` names the model of other languages' vectors
        self._tables["units"].add(pa.concat_tables([self._unit_rows(r) for r in records]))
        for record in records:
            if record.frames:
                self._tables["frames"].add(
                    pa.table(
                        {
                            "video_id": [record.video_id] * len(record.frames),
                            "t": [f.t for f in record.frames],
                            "jpeg": [f.jpeg for f in record.frames],
                        },
                        schema=self._tables["frames"].schema,
                    )
                )
            if record.frame_vectors is not None:
                self._add_visual(record)
            if record.captions:
                self._add_captions(record)
            if record.chunk_views and self.has_chunk_views:
                self._add_chunk_views(record)
            if self.has_words and any(s.words for s in record.segments):
                self._add_words(record)
            self._add_language(record)
            if record.chapters:  # its earlier rows are gone already (`_remove` above)
                self._add_chapters(record.video_id, record.chapters)
        rows = pa.concat_tables([self._video_row(r) for r in records])
        (
            self._tables["videos"]
            .merge_insert("video_id")
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .execute(rows)
        )

    def _video_row(self, record: VideoRecord) -> pa.Table:
        mean = record.chunk_vectors.mean(axis=0) if len(record.chunk_vectors) else np.zeros(self.meta["dim"])
        mean = mean / max(float(np.linalg.norm(mean)), 1e-12)
        return pa.table(
            {
                "video_id": [record.video_id],
                "path": [record.path],
                "size": [record.size],
                "mtime_ns": [record.mtime_ns],
                "duration": [record.duration],
                "source": [record.source],
                "text": [record.text],
                "vector": [mean.astype(np.float32).tolist()],
            },
            schema=self._tables["videos"].schema,
        )

    def _add_visual(self, record: VideoRecord) -> None:
        dim = self.meta["visual_dim"]
        flat = np.asarray(record.frame_vectors, np.float32).reshape(-1)
        self._tables["frame_vectors"].add(
            pa.table(
                {
                    "video_id": [record.video_id] * len(record.frames),
                    "t": [f.t for f in record.frames],
                    "vector": pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float32()), dim),
                },
                schema=self._tables["frame_vectors"].schema,
            )
        )
        assert record.visual_vector is not None, "ingest sets frame_vectors and visual_vector together"
        self.set_visual(record.video_id, record.visual_frames, record.visual_vector)

    def _add_captions(self, record: VideoRecord) -> None:
        dim = self.meta["dim"]
        flat = np.asarray(record.caption_vectors, np.float32).reshape(len(record.captions) * dim)
        self._tables["captions"].add(
            pa.table(
                {
                    "video_id": [record.video_id] * len(record.captions),
                    "t": [c.t for c in record.captions],
                    "text": [c.text for c in record.captions],
                    "vector": pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float32()), dim),
                },
                schema=self._tables["captions"].schema,
            )
        )

    def _add_language(self, record: VideoRecord) -> None:
        row = {"video_id": [record.video_id], "language": [record.language], "probability": [record.language_p]}
        row["multilingual"] = [record.multilingual]
        self._tables["languages"].add(pa.table(row, schema=self._tables["languages"].schema))

    def set_chapters(self, video_id: str, chapters: list[Chapter]) -> None:
        """(Re)place a video's chapters (ingest, or `optimize` for a video indexed before them)."""
        with self.writer():
            self._tables["chapters"].delete(f"video_id = {quote(video_id)}")
            self._add_chapters(video_id, chapters)

    def _add_chapters(self, video_id: str, chapters: list[Chapter]) -> None:
        self._add_timed("chapters", video_id, chapters, "titles", [c.title for c in chapters])

    def _add_words(self, record: VideoRecord) -> None:
        words = [w for s in record.segments for w in s.words]
        self._add_timed("words", record.video_id, words, "words", [w.text for w in words])

    def _add_timed(self, table: str, video_id: str, spans: list, column: str, texts: list[str]) -> None:
        """A video's row of timed texts (`tables._timed_texts`): the spans' starts and ends, `texts`."""
        row = {"video_id": [video_id], "starts": [[s.start for s in spans]], "ends": [[s.end for s in spans]]}
        self._tables[table].add(pa.table({**row, column: [texts]}, schema=self._tables[table].schema))

    def _add_chunk_views(self, record: VideoRecord) -> None:
        views = record.chunk_views
        dim = self.meta["visual_dim"]
        flat = np.asarray(np.stack([v.vector for v in views]), np.float32).reshape(-1)
        self._tables["chunk_views"].add(
            pa.table(
                {
                    "video_id": [record.video_id] * len(views),
                    "start": [v.start for v in views],
                    "end": [v.end for v in views],
                    "keyframes": [list(map(float, v.keyframes)) for v in views],
                    "keyframe_vectors": [
                        np.asarray(v.keyframe_vectors, np.float32).reshape(-1).tolist() for v in views
                    ],
                    "vector": pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float32()), dim),
                },
                schema=self._tables["chunk_views"].schema,
            )
        )

    def set_visual(self, video_id: str, frames: list[float], vector: np.ndarray) -> None:
        """(Re)place a video's visual representation: the frames chosen for retrieval, their vector."""
        with self.writer():
            self._tables["visual"].delete(f"video_id = {quote(video_id)}")
            self._tables["visual"].add(
                pa.table(
                    {
                        "video_id": [video_id],
                        "frames": [list(map(float, frames))],
                        "vector": [np.asarray(vector, np.float32).tolist()],
                    },
                    schema=self._tables["visual"].schema,
                )
            )

    def _unit_rows(self, record: VideoRecord) -> pa.Table:
        units = [("segment", record.segments, record.segment_vectors), ("chunk", record.chunks, record.chunk_vectors)]
        rows: dict[str, list] = {k: [] for k in ("kind", "idx", "start", "end", "text")}
        vectors = []
        for kind, segs, vecs in units:
            for i, seg in enumerate(segs):
                for key, value in zip(rows, (kind, i, seg.start, seg.end, seg.text), strict=True):
                    rows[key].append(value)
            vectors.append(np.asarray(vecs, np.float32).reshape(len(segs), self.meta["dim"]))
        flat = np.concatenate(vectors).reshape(-1)
        vector = pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float32()), self.meta["dim"])
        return pa.table(
            {"video_id": [record.video_id] * len(rows["kind"]), **rows, "vector": vector},
            schema=self._tables["units"].schema,
        )

    def relocate(self, video_id: str, path: str, size: int, mtime_ns: int) -> None:
        with self.writer():
            self._tables["videos"].update(
                where=f"video_id = {quote(video_id)}", values={"path": path, "size": size, "mtime_ns": mtime_ns}
            )

    def remove(self, video_id: str) -> None:
        """Drop a video and all its rows (nothing happens when it is not indexed)."""
        self._remove([video_id])

    def _remove(self, video_ids: list[str]) -> None:
        where = live_filter(video_ids)
        with self.writer():
            self._tables["videos"].delete(where)  # first: its other rows become orphans, never dangling
            for name in self._tables:
                if name != "videos":
                    self._tables[name].delete(where)

    def remove_orphans(self) -> int:
        """Drop the rows of unfinished videos (under the writer lock: never another run's)."""
        with self.writer():
            orphans = set().union(*self.orphans().values())
            if orphans:
                where = live_filter(orphans)
                for name in self._tables:
                    if name != "videos":
                        self._tables[name].delete(where)
        return len(orphans)

    def keep_one_row(self, video_id: str) -> None:
        """Collapse duplicate `videos` rows of one id into one (the last written)."""
        where = f"video_id = {quote(video_id)}"
        with self.writer():
            rows = self._tables["videos"].search().where(where).to_arrow()
            self._tables["videos"].delete(where)
            self._tables["videos"].add(rows.slice(rows.num_rows - 1))

    def compact(self) -> None:
        with self.writer():
            for table in self._tables.values():
                try:
                    table.optimize()
                except Exception as exc:  # compaction is an optimisation; never fail ingest on it
                    log.info("compaction of %s skipped: %s", table.name, exc)
