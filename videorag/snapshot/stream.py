"""A snapshot's segment and chunk levels written straight from the index into the snapshot's
folder, a block of rows at a time, and mapped back: at 10M segments the vectors alone are 15 GB,
more than a box holds beside the rest, so no level is ever whole in memory. What is read whole:
each unit's video, times and text (Arrow, about 1 GB at 10M segments); the vectors are read in
batches and written in place (`pwrite`, nothing mapped while writing)."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..lexical.bm25 import BLOCK, BM25, TermCounts, workers
from . import load_level, save_bm25
from .corpus import Level

log = logging.getLogger(__name__)

VECTOR_BATCH = 65_536  # vectors read from the index at a time


class NpyFile:
    """A `.npy` file of known shape and dtype, written by row ranges (never mapped)."""

    def __init__(self, path: Path, shape: tuple[int, ...], dtype):
        self.dtype = np.dtype(dtype)
        self.row_bytes = int(np.prod(shape[1:], dtype=np.int64)) * self.dtype.itemsize
        header = {"descr": np.lib.format.dtype_to_descr(self.dtype), "fortran_order": False, "shape": shape}
        with open(path, "wb") as handle:
            np.lib.format.write_array_header_2_0(handle, header)
            self.offset = handle.tell()
            handle.truncate(self.offset + shape[0] * self.row_bytes)
        self.fd = os.open(path, os.O_WRONLY)

    def write(self, row: int, values: np.ndarray) -> None:
        data = np.ascontiguousarray(values, self.dtype).tobytes()
        os.pwrite(self.fd, data, self.offset + row * self.row_bytes)

    def scatter(self, rows: np.ndarray, values: np.ndarray) -> None:
        """`values[i]` at row `rows[i]`: one write per run of consecutive rows."""
        order = np.argsort(rows, kind="stable")
        rows, values = rows[order], values[order]
        breaks = np.flatnonzero(np.diff(rows) != 1) + 1
        for lo, hi in zip(np.r_[0, breaks], np.r_[breaks, len(rows)], strict=True):
            self.write(int(rows[lo]), values[lo:hi])

    def close(self) -> None:
        os.close(self.fd)


def level_into(folder: Path, index, kind: str, row: dict[str, int], dim: int) -> Level:
    """The units of `kind` of `index` (a `VideoIndex`; of the videos in `row`, numbered by it),
    written as level `kind` under `folder` and mapped from there (`Level.folder`)."""
    begun, small = time.perf_counter(), index.unit_rows(kind)
    ids = pa.array(list(row), pa.string())
    owner = pc.index_in(small["video_id"], value_set=ids).fill_null(-1).to_numpy().astype(np.int32)
    live = np.flatnonzero(owner >= 0)  # an interrupted write's orphans are left out
    starts = small["start"].to_numpy()
    order = live[np.lexsort((starts[live], owner[live]))]
    owner = owner[order]
    block_starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]]) if len(owner) else np.zeros(0, np.int64)
    for key, value in {
        "owner": owner,
        "starts": starts[order],
        "ends": small["end"].to_numpy()[order],
        "block_starts": block_starts,
        "block_owner": owner[block_starts],
    }.items():
        np.save(folder / f"{kind}.{key}.npy", value)
    texts = small["text"].cast(pa.large_string()).take(pa.array(order))
    _write_texts(folder, kind, texts)
    save_bm25(folder, kind, _bm25(texts))
    rowids = small["_rowid"].to_numpy()
    del small, texts
    _write_vectors(folder / f"{kind}.vectors.npy", index.unit_vectors(kind, VECTOR_BATCH), rowids, order, dim)
    log.info(
        "search snapshot: %s level (%d units) read and written in %.1f s", kind, len(order), time.perf_counter() - begun
    )
    return load_level(folder, kind, {"ann": None})


def _write_texts(folder: Path, name: str, texts: pa.ChunkedArray) -> None:
    """The texts as one UTF-8 blob and offsets, straight from Arrow's buffers."""
    chunks = [c for c in texts.chunks if len(c)]
    spans = [np.frombuffer(c.buffers()[1], np.int64)[c.offset : c.offset + len(c) + 1] for c in chunks]
    sizes = [int(s[-1] - s[0]) for s in spans]
    blob = NpyFile(folder / f"{name}.texts.npy", (sum(sizes),), np.uint8)
    offsets, at = [np.zeros(1, np.int64)], 0
    for chunk, span, size in zip(chunks, spans, sizes, strict=True):
        blob.write(at, np.frombuffer(chunk.buffers()[2], np.uint8)[span[0] : span[-1]])
        offsets.append(span[1:] - span[0] + at)
        at += size
    blob.close()
    np.save(folder / f"{name}.offsets.npy", np.concatenate(offsets))


def _bm25(texts: pa.ChunkedArray) -> BM25:
    """BM25 of the texts, counted a block at a time on every core (tokenising is most of a large
    level's build: 10M segments ≈ 4 minutes on one core)."""
    counts = TermCounts()
    blocks = (texts.slice(lo, BLOCK).to_pylist() for lo in range(0, len(texts), BLOCK))
    counts.add_all(blocks, workers(len(texts)))
    bm25 = BM25()
    bm25.use(counts)
    return bm25


def _write_vectors(path: Path, batches, rowids: np.ndarray, order: np.ndarray, dim: int) -> None:
    """The vectors of `batches` (row id, vector) of the units the first read found (`rowids`),
    each at its place in `order` (a unit written since that read is not among them: the
    snapshot is stale anyway)."""
    place = np.full(len(rowids), -1, np.int64)
    place[order] = np.arange(len(order))
    by_id = np.argsort(rowids)
    out = NpyFile(path, (len(order), dim), np.float32)
    if not len(rowids):
        return out.close()
    for batch in batches:
        ids = batch.column("_rowid").to_numpy()
        found = by_id[np.minimum(np.searchsorted(rowids, ids, sorter=by_id), len(by_id) - 1)]
        dest = np.where(rowids[found] == ids, place[found], -1)
        keep = np.flatnonzero(dest >= 0)
        if len(keep):
            flat = batch.column("vector").flatten().to_numpy(zero_copy_only=False)
            out.scatter(dest[keep], np.asarray(flat, np.float32).reshape(-1, dim)[keep])
    out.close()
