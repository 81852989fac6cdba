"""Reading an index: videos, text units, frames, captions, visual vectors and figures. Rows of
videos missing from `videos` (orphans of an interrupted write) are left out."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..types import Chapter, Frame, Segment, Word
from .state import IndexState
from .tables import caption_schemas, live_filter, quote, view_schemas


class Reads(IndexState):
    """The reading half of `VideoIndex` (a mixin: it uses the index's `_tables`, `meta`,
    `location`, `has_visual`, `has_captions` and `has_chunk_views`)."""

    def videos(self, columns: list[str] | None = None) -> pa.Table:
        query = self._tables["videos"].search()
        return (query.select(columns) if columns else query).to_arrow()

    def video_ids(self) -> set[str]:
        return set(self.videos(["video_id"])["video_id"].to_pylist())

    def units(self, live: set[str] | None = None) -> pa.Table:
        """All segment and chunk rows of indexed videos (orphans excluded), or of the videos in
        `live` (a reader building from one `videos` read passes its ids: a video committed
        meanwhile is then left out, not half in)."""
        ids = sorted(self.video_ids() if live is None else live)
        if len(ids) <= 500:  # a few videos (an incremental snapshot): filtered in the scan
            if not ids:
                return self._tables["units"].schema.empty_table()
            return self._tables["units"].search().where(live_filter(ids)).to_arrow()
        table = self._tables["units"].to_arrow()
        return table.filter(pc.is_in(table["video_id"], value_set=pa.array(ids, pa.string())))

    def unit_rows(self, kind: str) -> pa.Table:
        """Video, times, text and row id (`_rowid`) of every `kind` unit, orphans included
        (no vectors: at 10M segments those are read in batches, `unit_vectors`)."""
        query = self._tables["units"].search().where(f"kind = {quote(kind)}")
        return query.select(["video_id", "start", "end", "text"]).with_row_id(True).to_arrow()

    def unit_vectors(self, kind: str, batch: int) -> pa.RecordBatchReader:
        """Row id and vector of every `kind` unit, about `batch` at a time."""
        query = self._tables["units"].search().where(f"kind = {quote(kind)}")
        return query.select(["vector"]).with_row_id(True).to_batches(batch)

    def segments(self, video_id: str, kind: str = "segment") -> list[Segment]:
        rows = (
            self._tables["units"]
            .search()
            .where(f"video_id = {quote(video_id)} AND kind = {quote(kind)}")
            .select(["idx", "start", "end", "text"])
            .to_arrow()
            .to_pylist()
        )
        return [Segment(r["start"], r["end"], r["text"]) for r in sorted(rows, key=lambda r: r["idx"])]

    def words(self, video_id: str, start: float = 0.0, end: float = float("inf")) -> list[Word]:
        """The video's recognised words said between `start` and `end`, in time order (none when
        the index, or the video, has no word timings: format 1, subtitles)."""
        if not self.has_words:
            return []
        rows = self._tables["words"].search().where(f"video_id = {quote(video_id)}").to_arrow().to_pylist()
        return [
            Word(a, b, text)
            for row in rows[-1:]
            for a, b, text in zip(row["starts"], row["ends"], row["words"], strict=True)
            if a < end and b > start
        ]

    def chapters(self, video_id: str | None = None) -> dict[str, list[Chapter]]:
        """{video_id: its chapters} of every video (or of `video_id`) that has them (format 4;
        videos indexed before have none until `videorag optimize`)."""
        if not self.has_chapters:
            return {}
        query = self._tables["chapters"].search()
        rows = (query.where(f"video_id = {quote(video_id)}") if video_id else query).to_arrow().to_pylist()
        return {
            r["video_id"]: [Chapter(*c) for c in zip(r["starts"], r["ends"], r["titles"], strict=True)] for r in rows
        }

    def languages(self) -> dict[str, tuple[str, float | None]]:
        """{video_id: (language, probability)} of the videos whose language is recorded (format 3;
        the others were indexed as English)."""
        if not self.has_languages:
            return {}
        rows = self._tables["languages"].search().to_arrow().to_pylist()
        return {r["video_id"]: (r["language"], r["probability"]) for r in rows}

    def multilingual(self, live: set[str]) -> set[str]:
        """The videos of `live` whose vectors are the multilingual embedder's (`embed.e5`)."""
        if not self.has_languages:
            return set()
        rows = self._tables["languages"].search().where("multilingual").select(["video_id"]).to_arrow()
        return set(rows["video_id"].to_pylist()) & live

    def language_counts(self, live: list[str]) -> dict[str, int]:
        """{language: videos} of the videos in `live`, most first; those without a recorded
        language count as English."""
        known = self.languages()
        counts: dict[str, int] = {}
        for video_id in live:
            language = known.get(video_id, ("en", None))[0]
            counts[language] = counts.get(language, 0) + 1
        return dict(sorted(((k, v) for k, v in counts.items() if v > 0), key=lambda kv: -kv[1]))

    def per_video(self, name: str, live: set[str]) -> pa.Table:
        """The rows of table `name` (`words`, `chapters`: one row per video) of the videos in `live`."""
        ids = sorted(live)
        return (
            self._tables[name].search().where(live_filter(ids)).to_arrow()
            if ids
            else self._tables[name].schema.empty_table()
        )

    def frames(self, video_id: str) -> list[Frame]:
        rows = (
            self._tables["frames"]
            .search()
            .where(f"video_id = {quote(video_id)}")
            .select(["t", "jpeg"])
            .to_arrow()
            .to_pylist()
        )
        return [Frame(r["t"], r["jpeg"]) for r in sorted(rows, key=lambda r: r["t"])]

    def frames_at(self, video_id: str, times) -> list[Frame]:
        """The video's frames sampled at exactly these seconds, in time order (only their JPEGs read)."""
        wanted = sorted({float(t) for t in times})
        if not wanted:
            return []
        rows = (
            self._tables["frames"]
            .search()
            .where(f"video_id = {quote(video_id)} AND t IN ({', '.join(map(repr, wanted))})")
            .select(["t", "jpeg"])
            .to_arrow()
            .to_pylist()
        )
        return [Frame(r["t"], r["jpeg"]) for r in sorted(rows, key=lambda r: r["t"])]

    def frame_near(self, video_id: str, t: float) -> Frame | None:
        """The sampled frame of a video nearest to `t` seconds (None when it has none): the
        timestamps are read first, then that one frame's JPEG."""
        base = f"video_id = {quote(video_id)}"
        times = self._tables["frames"].search().where(base).select(["t"]).to_arrow()["t"].to_numpy()
        if not len(times):
            return None
        nearest = float(times[np.argmin(np.abs(times - t))])
        row = (
            self._tables["frames"]
            .search()
            .where(f"{base} AND t = {nearest!r}")
            .select(["t", "jpeg"])
            .limit(1)
            .to_arrow()
            .to_pylist()
        )
        return Frame(row[0]["t"], row[0]["jpeg"]) if row else None

    def captions(self, video_id: str | None = None) -> pa.Table:
        """Caption rows (video_id, t, text, vector) of indexed videos, or of one video, sorted by
        (video_id, t); orphans excluded; empty when the index has no captioner."""
        if not self.has_captions:
            return caption_schemas(self.meta["dim"])["captions"].empty_table()
        query = self._tables["captions"].search()
        if video_id is not None:
            query = query.where(f"video_id = {quote(video_id)}")
        table = query.select(["video_id", "t", "text", "vector"]).to_arrow()
        live = pa.array(sorted(self.video_ids()), pa.string())
        table = table.filter(pc.is_in(table["video_id"], value_set=live))
        return table.sort_by([("video_id", "ascending"), ("t", "ascending")])

    def chunk_views(self, live: set[str]) -> pa.Table:
        """CARVE's visual view rows of the videos in `live` (empty without them)."""
        if not self.has_chunk_views:
            return (
                view_schemas(self.meta["visual_dim"])["chunk_views"].empty_table()
                if self.has_visual
                else pa.table({"video_id": pa.array([], pa.string())})
            )
        table = self._tables["chunk_views"].to_arrow()
        return table.filter(pc.is_in(table["video_id"], value_set=pa.array(sorted(live), pa.string())))

    def visual_vectors(self, live: set[str] | None = None) -> dict[str, np.ndarray]:
        """{video_id: visual vector} of indexed videos, or of those in `live` (empty without the
        visual path)."""
        if not self.has_visual:
            return {}
        rows = self._tables["visual"].search().select(["video_id", "vector"]).to_arrow()
        live = self.video_ids() if live is None else live
        vectors = (
            np.asarray(rows["vector"].combine_chunks().flatten().to_numpy(zero_copy_only=False), np.float32).reshape(
                -1, self.meta["visual_dim"]
            )
            if rows.num_rows
            else np.zeros((0, 0))
        )
        return {v: vectors[i] for i, v in enumerate(rows["video_id"].to_pylist()) if v in live}

    def frame_vectors(self, video_id: str) -> tuple[np.ndarray, np.ndarray]:
        """(times, (n, visual dim) vectors) of a video's sampled frames, time order."""
        if not self.has_visual:
            return np.zeros(0), np.zeros((0, 0), np.float32)
        rows = (
            self._tables["frame_vectors"]
            .search()
            .where(f"video_id = {quote(video_id)}")
            .select(["t", "vector"])
            .to_arrow()
        )
        times = rows["t"].to_numpy()
        vectors = np.asarray(
            rows["vector"].combine_chunks().flatten().to_numpy(zero_copy_only=False), np.float32
        ).reshape(len(times), -1)
        order = np.argsort(times, kind="stable")
        return times[order], vectors[order]

    def all_frame_vectors(self, live: set[str]) -> pa.Table:
        """The frame vector rows (video_id, t, vector) of the videos in `live`, read in one scan
        (for the search snapshot)."""
        rows = self._tables["frame_vectors"].search().select(["video_id", "t", "vector"]).to_arrow()
        return rows.filter(pc.is_in(rows["video_id"], value_set=pa.array(sorted(live), pa.string())))

    def orphans(self) -> dict[str, set[str]]:
        """{table: ids of videos with rows there but no `videos` row} (an interrupted write)."""
        live = self.video_ids()
        found = {}
        for name in self._tables:
            if name != "videos":
                ids = self._tables[name].search().select(["video_id"]).to_arrow()["video_id"]
                found[name] = set(pc.unique(ids).to_pylist()) - live
        return {name: ids for name, ids in found.items() if ids}

    def row_ids(self, table: str) -> pa.Array:
        """The video_id column of one table (one entry per row; absent tables give none)."""
        if table not in self._tables:
            return pa.array([], pa.string())
        return self._tables[table].search().select(["video_id"]).to_arrow()["video_id"].combine_chunks()

    def unit_kinds(self) -> set[tuple[str, str]]:
        """The (video_id, kind) pairs present in `units`."""
        rows = self._tables["units"].search().select(["video_id", "kind"]).to_arrow()
        return set(zip(rows["video_id"].to_pylist(), rows["kind"].to_pylist(), strict=True))

    def version(self) -> tuple[int, ...]:
        return tuple(t.version for t in list(self._tables.values()))

    def stats(self) -> dict:
        videos = self.videos(["video_id", "duration", "source"])
        return {
            "path": str(self.location),
            "videos": videos.num_rows,
            "hours": round(sum(videos["duration"].to_pylist()) / 3600, 3),
            "units": self._tables["units"].count_rows(),
            "frames": self._tables["frames"].count_rows(),
            "captions": self._tables["captions"].count_rows() if self.has_captions else 0,
            "word_timings": self._tables["words"].count_rows() if self.has_words else 0,
            "chaptered": self._tables["chapters"].count_rows() if self.has_chapters else 0,
            "languages": self.language_counts(videos["video_id"].to_pylist()),
            "format": self.meta.get("format", 1),
            "disk_bytes": self.location.disk_bytes(),
            "models": {k: v for k, v in self.meta.items() if k != "format"},
        }
