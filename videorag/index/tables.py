"""What the index holds: `VideoRecord` (what ingest produces for one video) and the schemas of
its LanceDB tables.

`videos` (one row per video, written last, so a video exists only once all its rows do), `units`
(ASR / subtitle segments and fixed-window chunks, with embeddings) and `frames` (sampled frames as
JPEG with timestamps); with the visual path also `frame_vectors` and `visual` (and CARVE's
`chunk_views`), with a captioner also `captions` (a text per sampled frame, embedded by the text
embedder: RAG-Adapter's CaptionsDB); from format 2 on, `words` (recognised words and their times,
for citations at the words that say a claim); from format 3 on, `languages` (each video's); from
format 4 on, `chapters` (each video's topics: starts, ends, titles).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from ..types import Caption, Chapter, ChunkView, Frame, Segment


@dataclass
class VideoRecord:
    """Everything ingest produces for one video."""

    video_id: str
    path: str
    size: int
    mtime_ns: int
    duration: float
    source: str  # "asr" or "subtitles"
    segments: list[Segment]
    segment_vectors: np.ndarray
    chunks: list[Segment]
    chunk_vectors: np.ndarray
    frames: list[Frame] = field(default_factory=list)
    frame_vectors: np.ndarray | None = None  # (len(frames), visual dim) when the visual path is on
    visual_frames: list[float] = field(default_factory=list)  # times of the frames behind visual_vector
    visual_vector: np.ndarray | None = None
    captions: list[Caption] = field(default_factory=list)  # when a captioner is on
    caption_vectors: np.ndarray | None = None  # (len(captions), text dim)
    chunk_views: list[ChunkView] = field(default_factory=list)  # CARVE's visual views, per chunk
    language: str = "en"  # ISO 639-1 code of its speech or subtitles
    language_p: float | None = None  # the probability identification gave it (None: not identified)
    multilingual: bool = False  # its vectors are the multilingual embedder's (`embed.e5`), not the index's
    chapters: list[Chapter] = field(default_factory=list)  # its topics (`videorag.chapters`)

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.segments)


def visual_schemas(dim: int) -> dict[str, pa.Schema]:
    """The visual path's tables: a vector per sampled frame, and each video's visual vector."""
    vector = pa.list_(pa.float32(), dim)
    return {
        "frame_vectors": pa.schema([("video_id", pa.string()), ("t", pa.float64()), ("vector", vector)]),
        "visual": pa.schema([("video_id", pa.string()), ("frames", pa.list_(pa.float64())), ("vector", vector)]),
    }


def view_schemas(dim: int) -> dict[str, pa.Schema]:
    """CARVE's visual views per chunk: keyframes (times, flattened vectors) and a clip vector."""
    return {
        "chunk_views": pa.schema(
            [
                ("video_id", pa.string()),
                ("start", pa.float64()),
                ("end", pa.float64()),
                ("keyframes", pa.list_(pa.float64())),
                ("keyframe_vectors", pa.list_(pa.float32())),
                ("vector", pa.list_(pa.float32(), dim)),
            ]
        )
    }


def caption_schemas(dim: int) -> dict[str, pa.Schema]:
    """A captioner's table: a text per sampled frame, embedded by the text embedder."""
    return {
        "captions": pa.schema(
            [
                ("video_id", pa.string()),
                ("t", pa.float64()),
                ("text", pa.string()),
                ("vector", pa.list_(pa.float32(), dim)),
            ]
        )
    }


def word_schemas() -> dict[str, pa.Schema]:
    """Word timings (index format 2): one row per video, its recognised words and their times."""
    return {"words": _timed_texts("words")}


def chapter_schemas() -> dict[str, pa.Schema]:
    """Each video's chapters (index format 4): one row per video, their starts, ends and titles."""
    return {"chapters": _timed_texts("titles")}


def _timed_texts(texts: str) -> pa.Schema:
    """A table of one row per video: its timed texts' starts, ends, and the texts in `texts`."""
    times = pa.list_(pa.float64())
    return pa.schema([("video_id", pa.string()), ("starts", times), ("ends", times), (texts, pa.list_(pa.string()))])


def language_schemas() -> dict[str, pa.Schema]:
    """Each video's language (index format 3): an ISO 639-1 code, the probability language
    identification gave it (null: not identified), and whether its vectors (units and video)
    are the multilingual embedder's rather than the index's own text embedder's."""
    return {
        "languages": pa.schema(
            [
                ("video_id", pa.string()),
                ("language", pa.string()),
                ("probability", pa.float64()),
                ("multilingual", pa.bool_()),
            ]
        )
    }


def core_schemas(dim: int) -> dict[str, pa.Schema]:
    """The tables every index has: videos, text units, frames."""
    vector = pa.list_(pa.float32(), dim)
    return {
        "videos": pa.schema(
            [
                ("video_id", pa.string()),
                ("path", pa.string()),
                ("size", pa.int64()),
                ("mtime_ns", pa.int64()),
                ("duration", pa.float64()),
                ("source", pa.string()),
                ("text", pa.large_string()),
                ("vector", vector),
            ]
        ),
        "units": pa.schema(
            [
                ("video_id", pa.string()),
                ("kind", pa.string()),
                ("idx", pa.int32()),
                ("start", pa.float64()),
                ("end", pa.float64()),
                ("text", pa.string()),
                ("vector", vector),
            ]
        ),
        "frames": pa.schema([("video_id", pa.string()), ("t", pa.float64()), ("jpeg", pa.binary())]),
    }


def quote(value: str) -> str:
    """A string literal for a LanceDB filter."""
    return "'" + value.replace("'", "''") + "'"


def live_filter(video_ids) -> str:
    """A `video_id IN (...)` filter of these ids, quoted, in sorted order."""
    return "video_id IN (" + ", ".join(quote(v) for v in sorted(set(video_ids))) + ")"
