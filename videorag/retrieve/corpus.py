"""In-memory search corpus: three levels of text units (segment, chunk, whole video), each with
embeddings and a BM25 model, items grouped by video so per-video maxima are one reduce."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .bm25 import BM25
from .fusion import alpha_fuse


@dataclass
class Level:
    """Text units of one granularity, sorted by video (`owner` = row in Corpus.video_ids)."""

    owner: np.ndarray        # (n,) int32
    starts: np.ndarray       # (n,) float64
    ends: np.ndarray         # (n,) float64
    texts: list[str]
    vectors: np.ndarray      # (n, dim) float32, unit rows
    bm25: BM25
    block_starts: np.ndarray  # first item of each video's block
    block_owner: np.ndarray   # owner of each block

    @classmethod
    def build(cls, owner, starts, ends, texts, vectors) -> "Level":
        order = np.argsort(owner, kind="stable")
        owner = np.asarray(owner, np.int32)[order]
        texts = [texts[i] for i in order]
        block_starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]]) if len(owner) else np.zeros(0, int)
        return cls(owner, np.asarray(starts, np.float64)[order], np.asarray(ends, np.float64)[order],
                   texts, np.ascontiguousarray(np.asarray(vectors, np.float32)[order]), BM25(texts),
                   block_starts, owner[block_starts] if len(owner) else np.zeros(0, np.int32))

    def __len__(self) -> int:
        return len(self.texts)

    def per_video_max(self, scores: np.ndarray, n_videos: int) -> np.ndarray:
        out = np.zeros(n_videos, np.float32)
        if len(scores):
            out[self.block_owner] = np.maximum.reduceat(scores, self.block_starts)
        return out

    def best_in(self, video: int, dense: np.ndarray, lexical: np.ndarray, alpha: float) -> int | None:
        """The video's best item by α-fusion of scores normalised within the video."""
        lo, hi = np.searchsorted(self.owner, [video, video + 1])
        if lo == hi:
            return None
        return int(lo + np.argmax(alpha_fuse(dense[lo:hi], lexical[lo:hi], alpha)))


@dataclass
class Corpus:
    video_ids: list[str]
    paths: list[str]
    segments: Level
    chunks: Level
    videos: Level
    visual: np.ndarray | None = None  # (videos, visual dim) frame-based vectors; zero rows = none

    @classmethod
    def from_index(cls, index) -> "Corpus":
        videos = index.videos(["video_id", "path", "duration", "text", "vector"])
        ids = videos["video_id"].to_pylist()
        row = {v: i for i, v in enumerate(ids)}
        units = index.units()
        levels = {}
        for kind in ("segment", "chunk"):
            part = units.filter(np.asarray(units["kind"].to_pylist()) == kind) if units.num_rows else units
            owner = np.asarray([row[v] for v in part["video_id"].to_pylist()], np.int32)
            vectors = _vectors(part["vector"], index.meta["dim"])
            levels[kind] = Level.build(owner, part["start"].to_numpy(), part["end"].to_numpy(),
                                       part["text"].to_pylist(), vectors)
        whole = Level.build(np.arange(len(ids), dtype=np.int32), np.zeros(len(ids)),
                            videos["duration"].to_numpy(), videos["text"].to_pylist(),
                            _vectors(videos["vector"], index.meta["dim"]))
        visual = None
        if index.has_visual:
            vectors = index.visual_vectors()
            visual = np.zeros((len(ids), index.meta["visual_dim"]), np.float32)
            for video_id, vector in vectors.items():
                visual[row[video_id]] = vector
        return cls(ids, videos["path"].to_pylist(), levels["segment"], levels["chunk"], whole, visual)


def _vectors(column, dim: int) -> np.ndarray:
    flat = column.combine_chunks().flatten().to_numpy(zero_copy_only=False) if len(column) else np.zeros(0)
    return np.asarray(flat, np.float32).reshape(-1, dim)
