"""Approximate nearest-neighbour indexes of a snapshot's large levels, by kind: `ivf-flat`
(`ivf.IVF`: float32 vectors in cell order, every vector of the probed cells scored exactly) and
`ivf-pq` (`ivfpq.IVFPQ`: compressed codes, a short list re-scored exactly from the float32 vectors
on disk). Which a level gets follows its size (`choose`): exact below `ann_min_rows`, IVF-Flat up
to `ann_compress_rows`, IVF-PQ from there — and on every indexed level of a corpus whose segments
are that many (`python -m benchmarks ann`: results/scale/)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import numpy as np

from .ivf import IVF, Vectors
from .ivfpq import IVFPQ

KINDS: dict[str, type[IVF] | type[IVFPQ]] = {IVF.kind: IVF, IVFPQ.kind: IVFPQ}


class ANN(Protocol):
    kind: str
    probes: int  # cells searched per query by default (`SearchConfig.ann_probes` overrides)
    short: bool  # whether `search` gives a short list (else every vector of the probed cells)

    @property
    def cells(self) -> int: ...

    def search(self, query: np.ndarray, probes: int, shortlist: int) -> tuple[np.ndarray, np.ndarray]:
        """(level rows, exact similarities) of the vectors found near `query` in its `probes`
        nearest cells (a compressed index: the `shortlist` best, re-scored)."""
        ...

    def subset(self, rows: np.ndarray) -> tuple[ANN, Vectors]:
        """(index, vectors) of level rows `rows` alone, searched as this index searches them."""
        ...

    def grown(self, vectors: Vectors, new: Vectors) -> tuple[ANN, Vectors]:
        """(index, the level's vectors) with `new` appended as the next rows (their nearest cells)."""
        ...

    def stored(self, folder: Path, name: str, vectors: Vectors) -> dict[str, Vectors]:
        """The `.npy` arrays the level's vectors and index are saved as (writing any other file)."""
        ...


def choose(rows: int, min_rows: int, compress_rows: int, segments: int = 0) -> str | None:
    """The kind of index a level of `rows` units gets (None: exact search), in a corpus of
    `segments` segments: once those are compressed, every level large enough for an index is
    (at 10M segments the chunk and video levels' float32 vectors, 1.2 GB, would otherwise be most
    of what a search keeps in memory; their short lists are re-scored exactly all the same)."""
    if rows < min_rows:
        return None
    return IVFPQ.kind if max(rows, segments) >= compress_rows else IVF.kind


def grows_in_memory(info: dict | None) -> bool:
    """Whether a saved level (its manifest's `ann` entry) may be extended in memory: not one with
    IVF-PQ, whose float32 vectors are meant to stay on disk (15 GB at 10M units); a snapshot with
    one is rebuilt from the index instead, a level at a time."""
    return not info or info["kind"] != IVFPQ.kind


def build(kind: str, vectors: Vectors) -> ANN:
    """A `kind` index of `vectors` (an array, or a `RowFile`: rows read from disk, nothing mapped)."""
    return KINDS[kind].build(vectors)


def load(info: dict | None, folder: Path, name: str, array: Callable[[str], np.ndarray]) -> tuple[ANN | None, Vectors]:
    """(index or None, vectors) of a saved level (its manifest's `ann` entry: `info`); `array(KEY)`
    maps `NAME.KEY.npy`."""
    return KINDS[info["kind"]].read(folder, name, array) if info else (None, array("vectors"))
