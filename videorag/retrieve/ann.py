"""Approximate nearest-neighbour indexes of a snapshot's large levels, by kind: `ivf-flat`
(`ivf.IVF`: float32 vectors in cell order, every vector of the probed cells scored exactly) and
`ivf-pq` (`ivfpq.IVFPQ`: compressed codes, a short list re-scored exactly from the float32 vectors
on disk). Which a level gets follows its size (`choose`): exact below `ann_min_rows`, IVF-Flat up
to `ann_compress_rows`, IVF-PQ from there (`python -m benchmarks ann`: results/scale/)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Protocol

import numpy as np

from . import ivf
from .ivf import IVF, InRowOrder, Vectors
from .ivfpq import IVFPQ

KINDS = ("ivf-flat", "ivf-pq")


class ANN(Protocol):
    kind: str
    probes: int  # cells searched per query by default (`SearchConfig.ann_probes` overrides)

    @property
    def cells(self) -> int: ...

    def search(self, query: np.ndarray, probes: int, shortlist: int) -> tuple[np.ndarray, np.ndarray]:
        """(level rows, exact similarities) of the vectors found near `query` in its `probes`
        nearest cells (a compressed index: the `shortlist` best, re-scored)."""
        ...


def choose(rows: int, min_rows: int, compress_rows: int) -> str | None:
    """The kind of index a level of `rows` units gets (None: exact search)."""
    if rows < min_rows:
        return None
    return "ivf-pq" if rows >= compress_rows else "ivf-flat"


def build(kind: str, vectors: Vectors) -> ANN:
    if kind == "ivf-pq":
        return IVFPQ.build(np.asarray(vectors, np.float32) if isinstance(vectors, InRowOrder) else vectors)
    return IVF.build(vectors)


def extended(ann: ANN, vectors: Vectors, new: Vectors) -> tuple[ANN, Vectors]:
    """(index, the level's vectors) with `new` appended as the next rows (their nearest cells)."""
    new = np.asarray(new, np.float32)
    if isinstance(ann, IVFPQ):
        everything = np.concatenate([np.asarray(vectors, np.float32), new])
        return ann.extended(new, everything), everything
    assert isinstance(ann, IVF)
    grown = ivf.extended(ann, new)
    return grown, InRowOrder(grown)


def arrays(ann: ANN | None, vectors: Vectors) -> dict[str, Vectors]:
    """The `.npy` arrays a level's vectors and index are saved as (an IVF-Flat holds the vectors)."""
    if isinstance(ann, IVF):
        return {f"ivf.{key}": getattr(ann, key) for key in IVF.ARRAYS}
    return {"vectors": vectors}


def save(ann: ANN | None, folder: Path, name: str) -> dict | None:
    """Write what `arrays` does not hold; the manifest's `ann` entry."""
    if ann is None:
        return None
    if isinstance(ann, IVFPQ):
        ann.save(folder / f"{name}.ivfpq.faiss")
    return {"kind": ann.kind, "cells": ann.cells}


def load(info: dict | None, folder: Path, name: str, array: Callable[[str], np.ndarray]):
    """(index or None, vectors) of a saved level; `array(key)` maps `NAME.KEY.npy`."""
    if not info:
        return None, array("vectors")
    if info["kind"] == "ivf-pq":
        return IVFPQ.load(folder / f"{name}.ivfpq.faiss", folder / f"{name}.vectors.npy"), array("vectors")
    ivf = IVF(*(array(f"ivf.{key}") for key in IVF.ARRAYS))
    return ivf, InRowOrder(ivf)  # one copy of the vectors
