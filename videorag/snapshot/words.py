"""The search snapshot's timed texts: every recognised word of the corpus's videos with its
times, sorted by video then time, so that a query finds a cited span's words without opening the
index (`Corpus.words`; read from the index's `words` table when the snapshot is built); and the
same for each video's chapters, a title a span (`Corpus.chapters`, from the `chapters` table)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..types import Word


@dataclass
class Words:
    owner: np.ndarray  # (n,) int32: the word's video row
    starts: np.ndarray  # (n,) float64
    ends: np.ndarray  # (n,) float64
    texts: Sequence[str]

    @classmethod
    def build(cls, owner, starts, ends, texts) -> Words:
        order = np.lexsort((np.asarray(starts, np.float64), np.asarray(owner)))
        return cls(
            np.asarray(owner, np.int32)[order],
            np.asarray(starts, np.float64)[order],
            np.asarray(ends, np.float64)[order],
            [texts[i] for i in order],
        )

    def __len__(self) -> int:
        return len(self.owner)

    def of(self, video: int, start: float, end: float) -> list[Word]:
        """The words of video row `video` said between `start` and `end`, in time order."""
        lo, hi = np.searchsorted(self.owner, video, "left"), np.searchsorted(self.owner, video, "right")
        inside = lo + np.flatnonzero((self.starts[lo:hi] < end) & (self.ends[lo:hi] > start))
        return [Word(float(self.starts[i]), float(self.ends[i]), self.texts[i]) for i in inside]

    def extended(self, other: Words, first_video: int) -> Words:
        """These words followed by `other`'s, whose videos are numbered from `first_video` on."""
        return Words(
            np.r_[np.asarray(self.owner), np.asarray(other.owner) + first_video].astype(np.int32),
            np.r_[np.asarray(self.starts), np.asarray(other.starts)],
            np.r_[np.asarray(self.ends), np.asarray(other.ends)],
            list(self.texts) + list(other.texts),
        )


def joined(words: Words | None, other: Words | None, first_video: int) -> Words | None:
    """`words` followed by `other`'s (their videos numbered from `first_video` on); either may be None."""
    if other is None:
        return words
    return (words if words is not None else Words.build([], [], [], [])).extended(other, first_video)


def of_index(table, row: dict[str, int], column: str = "words") -> Words:
    """The timed texts of the videos in `row` from an index table of one row per video, with
    `starts`, `ends` and the texts in `column` (`words`: words; `chapters`: `titles`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    keep = [i for i, v in enumerate(table["video_id"].to_pylist()) if v in row]
    table = table.take(pa.array(keep, pa.int64()))
    counts = pc.list_value_length(table[column]).to_numpy(zero_copy_only=False) if len(table) else np.zeros(0)
    owner = np.repeat([row[v] for v in table["video_id"].to_pylist()], counts.astype(int))
    flat = (pc.list_flatten(table[key]) for key in ("starts", "ends", column))
    starts, ends, texts = (column.to_numpy(zero_copy_only=False) if len(table) else np.zeros(0) for column in flat)
    return Words.build(owner, starts, ends, list(texts))
