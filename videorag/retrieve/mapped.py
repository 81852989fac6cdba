"""Arrays over a file's pages (`mapped`), and giving back the pages a process has touched
(`release`): a searcher reads a few rows of files of gigabytes, and every page it ever touched
would otherwise count in its resident memory until the kernel needs it back."""

from __future__ import annotations

import mmap
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
