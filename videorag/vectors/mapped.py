"""Arrays over a file's pages (`mapped`), giving back the pages a process has touched
(`release`), and rows read without mapping (`RowFile`): a searcher reads a few rows of files of
gigabytes, and every page it ever touched would otherwise count in its resident memory until the
kernel needs it back."""

from __future__ import annotations

import mmap
import os
from pathlib import Path

import numpy as np


def mapped(path: Path) -> np.ndarray:
    """A read-only array over the file's pages (a plain ndarray view: numpy's memmap subclass
    costs microseconds on every slice, and searches slice thousands of times)."""
    return np.load(path, mmap_mode="r").view(np.ndarray)


def release(*arrays) -> None:
    """Unmap the pages of each memory-mapped array from this process (the file's pages stay in the
    page cache: the next read of them is a minor fault, no disk); other arrays: nothing."""
    for array in arrays:
        base = array
        while base is not None and not isinstance(base, mmap.mmap):
            base = getattr(base, "base", None)
        if base is not None and not base.closed:
            base.madvise(mmap.MADV_DONTNEED)


class RowFile:
    """Rows of a saved (n, dim) float32 `.npy`, read on demand with `pread` (thread-safe); as a
    whole (`np.asarray`), the file mapped."""

    def __init__(self, path: Path):
        with open(path, "rb") as handle:
            version = np.lib.format.read_magic(handle)
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, _, dtype = read(handle)
            self.offset = handle.tell()
        assert dtype == np.float32 and len(shape) == 2, f"{path}: not an (n, dim) float32 array"
        self.path, self.shape, self.row_bytes = path, shape, shape[1] * 4
        self.fd = os.open(path, os.O_RDONLY)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, rows: np.ndarray | slice | int) -> np.ndarray:
        """The rows at `rows` (indices), a range of them read at once (a slice without step), or
        one row (an integer)."""
        if isinstance(rows, (int, np.integer)):
            return self[np.asarray([int(rows)])][0]
        if isinstance(rows, slice):
            lo, hi, _ = rows.indices(len(self))
            out = np.empty((max(0, hi - lo), self.shape[1]), np.float32)
            self._read(out, lo)
            return out
        out = np.empty((len(rows), self.shape[1]), np.float32)
        for i, row in enumerate(rows):
            self._read(out[i], int(row))
        return out

    def _read(self, out: np.ndarray, row: int) -> None:
        """Fill `out` from row `row` on (one read may stop short: past 2 GB, Linux's most)."""
        view, done = out.data.cast("B"), 0
        while done < len(view):
            got = os.preadv(self.fd, [view[done:]], self.offset + row * self.row_bytes + done)
            if got <= 0:
                raise OSError(f"{self.path}: shorter than its header says (reading from row {row})")
            done += got

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return np.asarray(mapped(self.path), dtype)  # every row: the file's pages, not a copy in memory

    def __del__(self):
        if hasattr(self, "fd"):
            os.close(self.fd)
