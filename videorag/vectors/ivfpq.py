"""A compressed inverted-file index (IVF-PQ, on faiss) for levels too large to hold as float32:
each vector kept as `codes` bytes (product quantisation of its offset from its cell's centroid,
4-bit codes scanned with SIMD table lookups: faiss's FastScan). A query scans the codes of the
`probes` cells nearest it, keeps the `shortlist` best and scores those exactly against the level's
float32 vectors (row order, on disk: those rows are read with `pread`, not mapped, so a process's
memory does not grow with every row it ever re-scored), so what a searcher sees — rows and exact
similarities — is what `ivf.IVF` gives.

Chosen over today's IVF-Flat, faiss IVF-SQ8, 8-bit PQ and usearch's HNSW by `python -m
benchmarks ann` (results/scale/, real MiniLM vectors): at 1M vectors 96-byte FastScan codes give
the recall@10 of 8-bit PQ96 (0.968 at 128 probes, 200 re-scored) at a sixth of its latency (p50
3.1 against 19.8 ms) and built in 24 s against 40; at 10M 8-bit PQ96 measured 0.967 in 1 GB,
where a float32 IVF would need 15 GB in memory."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError
from .ivf import Vectors
from .mapped import RowFile

BLOCK = 500_000  # vectors per faiss `add` (bounds the float32 copy made for it)
SAMPLE_PER_CELL = 64  # k-means and codebook training points per cell


def _faiss():
    try:
        import faiss
    except ImportError as exc:
        raise ConfigError("compressed vector search needs faiss", "pip install faiss-cpu") from exc
    return faiss


@dataclass
class IVFPQ:
    index: Any  # faiss.IndexIVFPQ (inner product)
    vectors: Vectors  # (n, dim) float32 unit rows, row order: the exact re-score

    kind = "ivf-pq"
    short = True
    probes = 128  # a probe costs about half of IVF-Flat's; recall needs more of them

    @property
    def cells(self) -> int:
        return int(self.index.nlist)

    def search(self, query: np.ndarray, probes: int, shortlist: int = 200) -> tuple[np.ndarray, np.ndarray]:
        """(level rows, exact similarities) of the `shortlist` rows whose codes score best in the
        `probes` cells nearest the query, in row order."""
        if self.index.ntotal <= shortlist:  # all of it is the short list (FastScan may drop the least codes)
            rows = np.arange(self.index.ntotal)
        else:
            params = _faiss().SearchParametersIVF(nprobe=max(1, probes))
            _, found = self.index.search(np.asarray(query, np.float32)[None], shortlist, params=params)
            rows = np.sort(found[0][found[0] >= 0])
        return rows, np.asarray(self.vectors[rows] @ query, np.float32)

    @classmethod
    def build(cls, vectors: Vectors, cells: int | None = None, codes: int = 96, seed: int = 0) -> IVFPQ:
        """Cells ≈ √n by default; k-means and the codebooks train on ≤ 64 sampled points a cell.
        `vectors` may be memory-mapped or a `RowFile` (nothing mapped): they are added a block at
        a time."""
        faiss = _faiss()
        n, dim = vectors.shape
        cells = max(1, min(cells or int(np.sqrt(n)), n // 8 or 1))  # k-means wants a few points a cell
        parts = 2 * codes if dim % (2 * codes) == 0 else next(c for c in range(2 * codes, 0, -1) if dim % c == 0)
        index = faiss.IndexIVFPQFastScan(faiss.IndexFlatIP(dim), dim, cells, parts, 4, faiss.METRIC_INNER_PRODUCT)
        index.cp.min_points_per_centroid = index.pq.cp.min_points_per_centroid = 1  # small levels train quietly
        rng = np.random.default_rng(seed)
        sample = np.sort(rng.choice(n, min(n, SAMPLE_PER_CELL * max(cells, 256)), replace=False))
        points = np.asarray(vectors[sample], np.float32)
        index.train(np.resize(points, (max(len(points), 16), dim)))  # 16-entry codebooks: tiny levels repeat points
        for lo in range(0, n, BLOCK):
            index.add(np.ascontiguousarray(vectors[lo : lo + BLOCK], np.float32))
        return cls(index, vectors)

    def extended(self, new: np.ndarray, vectors: Vectors) -> IVFPQ:
        """This index with `new` added as rows n, n+1, … (their nearest existing cells; no
        training again); `vectors`: every row's float32 vector, new ones included."""
        index = _faiss().clone_index(self.index)
        index.add(np.ascontiguousarray(new, np.float32))
        return IVFPQ(index, vectors)

    def subset(self, rows: np.ndarray) -> tuple[IVFPQ, np.ndarray]:
        """(index, vectors in memory) of level rows `rows`: the same cells and codebooks (no
        training), so a shard probes the cells the whole index would."""
        vectors = np.ascontiguousarray(self.vectors[np.asarray(rows)], np.float32)
        index = _faiss().clone_index(self.index)
        index.reset()
        for lo in range(0, len(vectors), BLOCK):
            index.add(vectors[lo : lo + BLOCK])
        return IVFPQ(index, vectors), vectors

    def grown(self, vectors, new) -> tuple[IVFPQ, np.ndarray]:
        """(index, the level's vectors, in memory) with `new` appended as the next rows."""
        new = np.asarray(new, np.float32)
        everything = np.concatenate([np.asarray(vectors, np.float32), new])
        return self.extended(new, everything), everything

    def stored(self, folder: Path, name: str, vectors) -> dict:
        """Writes the index to `NAME.ivfpq.faiss`; the `.npy` arrays of the level: its vectors."""
        self.save(folder / f"{name}.ivfpq.faiss")
        return {"vectors": vectors}

    @classmethod
    def read(cls, folder: Path, name: str, array: Callable[[str], np.ndarray]) -> tuple[IVFPQ, Vectors]:
        """(index, the level's vectors) of a level saved with `stored`: the vectors are read with
        `pread` (a search reads the short list's rows and its hits' videos; mapped, every page
        it ever touched would count in the process's memory)."""
        ivfpq = cls.load(folder / f"{name}.ivfpq.faiss", folder / f"{name}.vectors.npy")
        return ivfpq, ivfpq.vectors

    def save(self, path: Path) -> None:
        _faiss().write_index(self.index, str(path))

    @classmethod
    def load(cls, path: Path, vectors: Path) -> IVFPQ:
        """The index saved at `path`, re-scoring from the `.npy` at `vectors`."""
        return cls(_faiss().read_index(str(path)), RowFile(vectors))
