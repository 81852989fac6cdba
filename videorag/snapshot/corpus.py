"""Search corpus: three levels of text units (segment, chunk, whole video), each with embeddings,
a BM25 model and, on large levels, an ANN index; items grouped by video so per-video maxima are
one reduce. Beside them what the index has beyond transcripts: frame captions (a fourth level),
frame vectors, each video's visual vector and CARVE's chunk views. Built from the index
(`videorag.snapshot.build`) or memory-mapped from its search snapshot (`videorag.snapshot`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from statistics import NormalDist

import numpy as np

from ..analysis import bigrams
from ..lexical.bm25 import BM25
from ..types import Chapter, Word
from ..vectors import ann as ann_kinds
from ..vectors import ivf
from .views import DEFAULT_CHUNK_SECONDS, ChunkViews
from .views import build as build_views
from .words import Words, joined


@dataclass
class Level:
    """Text units of one granularity, sorted by video then time (`owner` = row in
    Corpus.video_ids)."""

    owner: np.ndarray  # (n,) int32
    starts: np.ndarray  # (n,) float64
    ends: np.ndarray  # (n,) float64
    texts: Sequence[str]
    vectors: ivf.Vectors  # (n, dim) float32, unit rows (an IVF's, when `ann` is kept)
    bm25: BM25
    block_starts: np.ndarray  # first item of each video's block
    block_owner: np.ndarray  # owner of each block
    ann: ann_kinds.ANN | None = None  # approximate nearest neighbours (large levels of a snapshot)
    folder: Path | None = None  # the snapshot folder its arrays are mapped from

    @classmethod
    def build(cls, owner, starts, ends, texts, vectors) -> Level:
        sort = np.lexsort((np.asarray(starts, np.float64), np.asarray(owner)))
        # already sorted (as ingest writes): no copies
        order: np.ndarray | slice = slice(None) if np.array_equal(sort, np.arange(len(sort))) else sort
        owner = np.asarray(owner, np.int32)[order]
        texts = list(texts) if isinstance(order, slice) else [texts[i] for i in order]
        block_starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]]) if len(owner) else np.zeros(0, int)
        return cls(
            owner,
            np.asarray(starts, np.float64)[order],
            np.asarray(ends, np.float64)[order],
            texts,
            np.ascontiguousarray(np.asarray(vectors, np.float32)[order]),
            BM25(texts),
            block_starts,
            owner[block_starts] if len(owner) else np.zeros(0, np.int32),
        )

    def __len__(self) -> int:
        return len(self.texts)

    def extended(self, other: Level, first_video: int) -> Level:
        """This level followed by `other`'s items, whose videos are numbered from `first_video`
        on (so the items stay sorted by video). An IVF index takes the new vectors into its
        cells; it is dropped (the snapshot trains one again) once the level has grown 4× since
        its k-means."""
        n = len(self)
        ann: ann_kinds.ANN | None
        if self.ann is not None and n + len(other) <= 4 * self.ann.cells**2:
            ann, vectors = self.ann.grown(self.vectors, other.vectors)
        else:
            ann = None
            vectors = np.concatenate([np.asarray(self.vectors, np.float32), np.asarray(other.vectors, np.float32)])
        return Level(
            np.r_[self.owner, other.owner + first_video].astype(np.int32),
            np.r_[self.starts, other.starts],
            np.r_[self.ends, other.ends],
            list(self.texts) + list(other.texts),
            vectors,
            self.bm25.extended(other.bm25),
            np.r_[self.block_starts, other.block_starts + n].astype(np.int64),
            np.r_[self.block_owner, other.block_owner + first_video].astype(np.int32),
            ann,
        )

    def subset(self, videos: np.ndarray) -> Level:
        """The items of `videos` (ascending corpus rows), those videos numbered 0, 1, … in that
        order. BM25 keeps this level's idf and average length (`BM25.subset`), an ANN index its
        kind (`ANN.subset`): a shard scores as the whole collection does."""
        lo, hi = np.searchsorted(self.owner, videos), np.searchsorted(self.owner, np.asarray(videos) + 1)
        sizes = hi - lo
        offsets = np.r_[0, np.cumsum(sizes)]
        items = np.repeat(lo - offsets[:-1], sizes) + np.arange(offsets[-1])
        owner = np.searchsorted(videos, self.owner[items]).astype(np.int32)
        block_starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]]) if len(owner) else np.zeros(0, np.int64)
        ann, vectors = self.ann.subset(items) if self.ann is not None else (None, self.vectors[items])
        return Level(
            owner,
            np.asarray(self.starts)[items],
            np.asarray(self.ends)[items],
            [self.texts[int(i)] for i in items],
            vectors if ann is not None else np.ascontiguousarray(np.asarray(vectors, np.float32)),
            self.bm25.subset(items),
            block_starts,
            owner[block_starts] if len(owner) else np.zeros(0, np.int32),
            ann,
        )

    def expand(self, rows: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """Candidates' scores as a score per item, the lowest candidate score for the rest (after
        min-max they rank below every candidate)."""
        out = np.full(len(self), scores.min() if len(scores) else 0.0, np.float32)
        out[rows] = scores
        return out

    def span_similarity(self, query: np.ndarray, lo: int, hi: int) -> np.ndarray:
        """Exact cosine of items lo..hi-1 (one video's) to `query`."""
        return np.asarray(self.vectors[lo:hi] @ query)

    def per_video_max(self, scores: np.ndarray, n_videos: int, spread: float = 0.0) -> np.ndarray:
        """Each video's best item; with `spread` (> 0), less `spread · chances` (see there)."""
        out = np.zeros(n_videos, np.float32)
        if len(scores):
            out[self.block_owner] = np.maximum.reduceat(scores, self.block_starts) - spread * self.chances
        return out

    @cached_property
    def chances(self) -> np.ndarray:
        """Per video block of n items, how far the best of n unrelated scores tends to lie above
        their mean, in standard deviations: the expected maximum of n standard normal draws
        (`expected_maximum`). A video's best item, less this many standard deviations of the
        query's scores, no longer favours long videos for their number of chances (a 10-minute
        recording has ten times the segments of a 1-minute how-to)."""
        return expected_maximum(np.diff(np.r_[self.block_starts, len(self.owner)]))

    def span(self, video: int) -> tuple[int, int]:
        """[lo, hi): the rows of `video`'s items, in time order."""
        lo, hi = np.searchsorted(self.owner, np.array([video, video + 1], self.owner.dtype))  # no cast of owner
        return int(lo), int(hi)

    @cached_property
    def bigram_bm25(self) -> BM25:
        """BM25 over adjacent content-word pairs (a phrase signal), built on first use."""
        return BM25(self.texts, analyzer=bigrams)


def expected_maximum(sizes: np.ndarray) -> np.ndarray:
    """E[max of n standard normals] for each n, by Blom's approximation Φ⁻¹((n − 0.375) / (n + 0.25))
    (0 for n ≤ 1; within 0.03 of the exact value). The asymptote √(2 ln n) used before
    overstates it most for a few items (1.79 against 1.16 for 5), which took the most from a long
    recording's few chunks beside a short clip's one."""
    sizes = np.maximum(np.asarray(sizes, np.int64), 1)
    unique, at = np.unique(sizes, return_inverse=True)
    normal = NormalDist()
    values = [normal.inv_cdf((n - 0.375) / (n + 0.25)) if n > 1 else 0.0 for n in unique.tolist()]
    return np.asarray(values, np.float32)[at.reshape(-1)]


@dataclass
class FrameVectors:
    """Every sampled frame's vector (the visual embedder's space), sorted by video then time."""

    owner: np.ndarray  # (frames,) int32 row in Corpus.video_ids
    times: np.ndarray  # (frames,) float64 seconds
    vectors: np.ndarray  # (frames, visual dim) float32

    def of(self, video: int) -> tuple[np.ndarray, np.ndarray]:
        """(times, vectors) of one video's frames, in time order."""
        lo, hi = np.searchsorted(self.owner, np.array([video, video + 1], self.owner.dtype))
        return self.times[lo:hi], self.vectors[lo:hi]


@dataclass
class Corpus:
    """Everything a search reads: the text levels, and what the index has beyond transcripts —
    frame captions (a level), frame vectors, each video's frame-based vector, CARVE's chunk views.
    Built from the index by `videorag.snapshot.build` when the snapshot is saved; searching needs
    nothing else (frame images come from a `FrameStore`, only for generators and judges that
    read them)."""

    video_ids: list[str]
    paths: list[str]
    segments: Level
    chunks: Level
    videos: Level
    visual: np.ndarray | None = None  # (videos, visual dim) frame-based vectors; zero rows = none
    captions: Level | None = None  # frame captions (time = the frame's), None without a captioner
    frames: FrameVectors | None = None  # frame vectors, None without a visual backend
    views: ChunkViews | None = None  # CARVE's chunk views, None: the transcript view built on first use
    chunk_seconds: float = DEFAULT_CHUNK_SECONDS
    embed_model: str = ""  # the text embedder's name (what made the transcript view)
    words: Words | None = None  # word timings (`snapshot.words`), None: the index keeps none
    chapters: Words | None = None  # each video's chapters: a title a span (`snapshot.words`); None: none kept
    multilingual: np.ndarray | None = None  # (videos,) bool: whose vectors are e5's (`embed.e5`); None: none
    languages: list[str] | None = None  # each video's language (ISO 639-1); None: every video English

    def language_of(self, video: int) -> str:
        return self.languages[video] if self.languages is not None else "en"

    def multilingual_rows(self, level: Level) -> np.ndarray:
        """The rows of `level` whose vectors are the multilingual embedder's (ascending)."""
        if self.multilingual is None or not self.multilingual.any():
            return np.zeros(0, np.int64)
        return np.flatnonzero(self.multilingual[level.owner])

    def is_multilingual(self, video: int) -> bool:
        return self.multilingual is not None and bool(self.multilingual[video])

    def words_of(self, video_id: str, start: float, end: float) -> list[Word]:
        """The words of a video said between `start` and `end` ([] without word timings)."""
        if self.words is None or video_id not in self.row:
            return []
        return self.words.of(self.row[video_id], start, end)

    def chapters_of(self, video_id: str) -> list[Chapter]:
        """A video's chapters ([] where the index has none for it)."""
        if self.chapters is None or video_id not in self.row:
            return []
        return [Chapter(w.start, w.end, w.text) for w in self.chapters.of(self.row[video_id], 0.0, float("inf"))]

    def duration(self, video: int) -> float:
        return float(self.videos.ends[video])

    @cached_property
    def row(self) -> dict[str, int]:
        """{video id: its row} (the inverse of `video_ids`)."""
        return {v: i for i, v in enumerate(self.video_ids)}

    @cached_property
    def chunk_views(self) -> ChunkViews:
        """CARVE's chunks and their views: those saved with the corpus, else the transcript view
        of its chunk level (no index read)."""
        if self.views is not None:
            return self.views
        return build_views(self, {"chunk_seconds": self.chunk_seconds, "embed_model": self.embed_model})

    @property
    def text_only(self) -> bool:
        """Whether the corpus holds transcripts alone (no captions, frames or visual views)."""
        return (
            self.captions is None
            and self.frames is None
            and self.visual is None
            and (self.views is None or set(self.views.views) <= {"text-clip"})
        )

    def subset(self, rows: np.ndarray) -> Corpus:
        """The videos at `rows` (ascending) with their items, scoring as in this corpus (a shard
        of it: `Level.subset`). Transcripts alone: frames and views are not split."""
        if not self.text_only:
            raise ValueError("only a transcript corpus can be split")
        return Corpus(
            [self.video_ids[int(i)] for i in rows],
            [self.paths[int(i)] for i in rows],
            self.segments.subset(rows),
            self.chunks.subset(rows),
            self.videos.subset(rows),
            chunk_seconds=self.chunk_seconds,
            embed_model=self.embed_model,
            multilingual=None if self.multilingual is None else self.multilingual[rows],
            languages=None if self.languages is None else [self.languages[int(i)] for i in rows],
        )

    def extended(self, other: Corpus) -> Corpus:
        """This corpus followed by `other`'s videos (an ingest's additions). Both must be
        transcripts alone: a corpus with frames is built anew (a known video's vectors change
        when the frame selector is trained)."""
        if not (self.text_only and other.text_only):
            raise ValueError("only a transcript corpus can be extended")
        first = len(self.video_ids)
        return Corpus(
            list(self.video_ids) + list(other.video_ids),
            list(self.paths) + list(other.paths),
            self.segments.extended(other.segments, first),
            self.chunks.extended(other.chunks, first),
            self.videos.extended(other.videos, first),
            chunk_seconds=self.chunk_seconds,
            embed_model=self.embed_model,
            words=joined(self.words, other.words, first),
            chapters=joined(self.chapters, other.chapters, first),
            multilingual=None
            if self.multilingual is None and other.multilingual is None
            else np.r_[_flags(self.multilingual, first), _flags(other.multilingual, len(other.video_ids))],
            languages=None
            if self.languages is None and other.languages is None
            else [*(self.languages or ["en"] * first), *(other.languages or ["en"] * len(other.video_ids))],
        )


def _flags(flags: np.ndarray | None, n: int) -> np.ndarray:
    """Per-video flags, all False for None."""
    return np.zeros(n, bool) if flags is None else np.asarray(flags, bool)
