"""An inverted-file (IVF-Flat) index over unit vectors: spherical k-means cells; a query scores the
cells' centroids, then exactly every vector of the `probes` best cells. The vectors are stored in
cell order, so a probe reads contiguous memory; `InRowOrder` reads them back by row, so a level
with an IVF index keeps one copy of its vectors."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .mapped import RowFile

BLOCK = 65_536  # rows per matrix product while assigning (bounds memory)


@dataclass
class IVF:
    centroids: np.ndarray  # (cells, dim) float32, unit rows
    offsets: np.ndarray  # (cells + 1,) int64: cell c holds positions offsets[c]..offsets[c+1]
    rows: np.ndarray  # (n,) int32: the level row at each position
    vectors: np.ndarray  # (n, dim) float32, in cell order

    ARRAYS = ("centroids", "offsets", "rows", "vectors", "positions")
    kind = "ivf-flat"
    short = False
    probes = 32  # cells searched per query by default
    positions: np.ndarray | None = None  # (n,) int32: the position of each level row (inverse of rows)

    def __post_init__(self):
        if self.positions is None:
            self.positions = np.empty(len(self.rows), np.int32)
            self.positions[self.rows] = np.arange(len(self.rows), dtype=np.int32)

    @property
    def cells(self) -> int:
        return len(self.centroids)

    def search(self, query: np.ndarray, probes: int, shortlist: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(level rows, exact similarities) of every vector in the `probes` cells nearest the
        query (all of them are scored exactly: no short list)."""
        near = np.argsort(-(self.centroids @ query))[: max(1, probes)]
        spans = [(int(self.offsets[c]), int(self.offsets[c + 1])) for c in np.sort(near)]
        rows = np.concatenate([self.rows[lo:hi] for lo, hi in spans])
        scores = np.concatenate([self.vectors[lo:hi] @ query for lo, hi in spans])
        return rows, scores

    def subset(self, rows: np.ndarray) -> tuple[IVF, Vectors]:
        """(index, vectors) of level rows `rows`, in this index's cells (`subset`)."""
        part = subset(self, rows)
        return part, InRowOrder(part)

    def grown(self, vectors: Vectors, new: Vectors) -> tuple[IVF, Vectors]:
        """(index, the level's vectors) with `new` appended as the next rows (see `extended`)."""
        grown = extended(self, new)
        return grown, InRowOrder(grown)

    def stored(self, folder: Path, name: str, vectors: Vectors) -> dict[str, Vectors]:
        """The `.npy` arrays (`NAME.KEY.npy`) a level with this index is saved as: the index's own,
        which hold the vectors."""
        return {f"ivf.{key}": getattr(self, key) for key in self.ARRAYS}

    @classmethod
    def read(cls, folder: Path, name: str, array: Callable[[str], np.ndarray]) -> tuple[IVF, Vectors]:
        """(index, the level's vectors) of a level saved with `stored`; `array(KEY)` maps `NAME.KEY.npy`."""
        ivf = cls(*(array(f"ivf.{key}") for key in cls.ARRAYS))
        return ivf, InRowOrder(ivf)  # one copy of the vectors

    @classmethod
    def build(cls, vectors: Vectors, cells: int | None = None, iterations: int = 8, seed: int = 0) -> IVF:
        """Cells: ≈ √n by default. k-means runs on a sample of ≤ 64 points per cell."""
        n = len(vectors)
        cells = max(1, min(cells or int(np.sqrt(n)), n))
        rng = np.random.default_rng(seed)
        sample = np.asarray(vectors[np.sort(rng.choice(n, min(n, 64 * cells), replace=False))], np.float32)
        centroids = sample[rng.choice(len(sample), cells, replace=False)].copy()
        for _ in range(iterations):
            centroids = _update(sample, _assign(sample, centroids), centroids, rng)
        cell = _assign(vectors, centroids)
        order = np.argsort(cell, kind="stable").astype(np.int32)
        offsets = np.r_[0, np.cumsum(np.bincount(cell, minlength=cells))].astype(np.int64)
        return cls(centroids, offsets, order, np.ascontiguousarray(np.asarray(vectors, np.float32)[order]))


def subset(ivf: IVF, rows: np.ndarray) -> IVF:
    """The vectors of level rows `rows`, as rows 0, 1, … of an index with the same cells (a
    shard's: every shard then probes the cells the whole index would, so together they find
    what it finds)."""
    positions = ivf.positions
    assert positions is not None, "set by IVF.__post_init__"
    cell = np.repeat(np.arange(ivf.cells, dtype=np.int32), np.diff(ivf.offsets))[positions[rows]]
    order = np.argsort(cell, kind="stable").astype(np.int32)
    offsets = np.r_[0, np.cumsum(np.bincount(cell, minlength=ivf.cells))].astype(np.int64)
    return IVF(ivf.centroids, offsets, order, np.ascontiguousarray(ivf.vectors[positions[rows[order]]]))


def extended(ivf: IVF, vectors: Vectors) -> IVF:
    """`ivf` with `vectors` appended as rows n, n+1, …: each goes to its nearest existing cell
    (no k-means again; a snapshot retrains when the level has grown 4×)."""
    n = len(ivf.rows)
    cell = np.empty(n + len(vectors), np.int32)
    cell[ivf.rows] = np.repeat(np.arange(ivf.cells, dtype=np.int32), np.diff(ivf.offsets))
    cell[n:] = _assign(vectors, ivf.centroids)
    order = np.argsort(cell, kind="stable").astype(np.int32)
    everything = np.concatenate([np.asarray(InRowOrder(ivf)), np.asarray(vectors, np.float32)])
    offsets = np.r_[0, np.cumsum(np.bincount(cell, minlength=ivf.cells))].astype(np.int64)
    return IVF(ivf.centroids, offsets, order, everything[order])


class InRowOrder:
    """An IVF's vectors addressed by level row, like the (n, dim) array they were built from:
    indexing gathers rows, `@` scores every row. Only what is read is touched."""

    def __init__(self, ivf: IVF):
        assert ivf.positions is not None  # made by IVF.__post_init__
        self.ivf, self.positions = ivf, ivf.positions
        self.shape, self.dtype, self.ndim = ivf.vectors.shape, ivf.vectors.dtype, 2

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, key):
        return self.ivf.vectors[self.positions[key]]

    def __matmul__(self, other: np.ndarray) -> np.ndarray:
        return (self.ivf.vectors @ other)[self.ivf.positions]

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = self.ivf.vectors[self.ivf.positions]
        return out if dtype is None else out.astype(dtype)


Vectors = np.ndarray | InRowOrder | RowFile  # (n, dim) vectors: an array, an IVF's in level row order, a file's


def _assign(vectors: Vectors, centroids: np.ndarray) -> np.ndarray:
    out = np.empty(len(vectors), np.int32)
    for lo in range(0, len(vectors), BLOCK):
        out[lo : lo + BLOCK] = np.argmax(np.asarray(vectors[lo : lo + BLOCK], np.float32) @ centroids.T, axis=1)
    return out


def _update(sample: np.ndarray, cell: np.ndarray, old: np.ndarray, rng) -> np.ndarray:
    """Normalised cell means; an emptied cell restarts at a random sample point."""
    order = np.argsort(cell, kind="stable")
    counts = np.bincount(cell, minlength=len(old))
    filled = np.flatnonzero(counts)
    sums = np.zeros_like(old)
    sums[filled] = np.add.reduceat(sample[order], np.r_[0, np.cumsum(counts)[:-1]][filled], axis=0)
    empty = np.linalg.norm(sums, axis=1) < 1e-12
    sums[empty] = sample[rng.choice(len(sample), int(empty.sum()))]
    return sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
