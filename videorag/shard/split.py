"""Split an index's search corpus into shard snapshots (`videorag shard`).

Layout: `INDEX/shards/manifest.json` (the index's change token, the shards' folders and their
videos and segments) and one folder per shard, each a snapshot like the index's own
(`videorag.snapshot`), ANN indexes included where a shard's level is large enough, and
`rows.npy` (its videos' rows in the whole collection: equal scores rank as on one box). A
machine serving a shard needs only its folder.
"""

from __future__ import annotations

import heapq
import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np

from .. import snapshot
from ..errors import IndexError_
from ..snapshot.corpus import Corpus
from ..vectors import ann as ann_kinds

FOLDER = "shards"
ROWS = "rows.npy"  # in a shard's folder: each of its videos' row in the whole collection


def balanced(sizes: np.ndarray, n: int) -> list[np.ndarray]:
    """Video rows in `n` groups of about equal total size (largest first onto the lightest
    group), each group ascending."""
    heap = [(0, k) for k in range(n)]
    groups: list[list[int]] = [[] for _ in range(n)]
    for row in np.argsort(-np.asarray(sizes), kind="stable"):
        total, k = heapq.heappop(heap)
        groups[k].append(int(row))
        heapq.heappush(heap, (total + int(sizes[row]), k))
    return [np.asarray(sorted(g), np.int64) for g in groups]


def split(library, n: int, progress=None) -> dict:
    """Write the index's corpus as `n` shard snapshots under `INDEX/shards/` (replacing any
    there) and return their manifest."""
    if n < 1:
        raise IndexError_(f"--shards must be at least 1, got {n}", "e.g. --shards 4")
    corpus, made = _current(library)
    if len(corpus.video_ids) < n:
        raise IndexError_(
            f"{len(corpus.video_ids)} videos cannot fill {n} shards", "use fewer shards than indexed videos"
        )
    if not corpus.text_only:
        raise IndexError_(
            "only a transcript index can be sharded (this one has frames or captions)",
            "index without --visual / --caption to shard it, or search it on one box",
        )
    cfg = library.config.search
    return write(corpus, made, library.location.local / FOLDER, n, cfg.ann_min_rows, cfg.ann_compress_rows, progress)


def write(corpus: Corpus, made: str, root: Path, n: int, ann_min_rows: int, compress_rows: int, progress=None) -> dict:
    """`corpus` as `n` shard snapshots under `root` (replaced), made at the index token `made`.
    A level large enough for an ANN index gets one over the whole collection first, and each
    shard keeps its cells (`ANN.subset`): the shards probe the cells the whole index would."""
    corpus = _indexed(corpus, ann_min_rows, compress_rows)
    sizes = np.bincount(np.asarray(corpus.segments.owner), minlength=len(corpus.video_ids))
    if root.exists():
        shutil.rmtree(root)
    shards = []
    for k, rows in enumerate(balanced(sizes, n)):
        folder = root / str(k)
        folder.mkdir(parents=True)
        snapshot.save(corpus.subset(rows), folder, made, ann_min_rows, compress_rows)
        np.save(folder / ROWS, rows)
        shards.append({"folder": str(k), "videos": len(rows), "segments": int(sizes[rows].sum())})
        if progress is not None:
            progress(k + 1, n)
    found = {"token": made, "embed_model": corpus.embed_model, "shards": shards}
    (root / "manifest.json").write_text(json.dumps(found, indent=1))
    return found


def _indexed(corpus: Corpus, ann_min_rows: int, compress_rows: int) -> Corpus:
    """`corpus` with an ANN index on each level that would have one (the given corpus unchanged)."""
    levels = {}
    for name in ("segments", "chunks", "videos"):
        level = getattr(corpus, name)
        kind = ann_kinds.choose(len(level), ann_min_rows, compress_rows, len(corpus.segments))
        if level.ann is None and kind is not None:
            level = replace(level, ann=ann_kinds.build(kind, level.vectors))
        levels[name] = level
    return replace(corpus, **levels)


def _current(library) -> tuple[Corpus, str]:
    """(the index's corpus, its token): the snapshot when fresh, else read from the index."""
    made = snapshot.token(library.location)
    corpus = snapshot.load(library.location, made)
    return (corpus, made) if corpus is not None else library.read()


def count(index: Path) -> int:
    """How many shards the index at `index` has (0: none)."""
    try:
        return len(json.loads((Path(index) / FOLDER / "manifest.json").read_text())["shards"])
    except (OSError, ValueError, KeyError):
        return 0


def manifest(index: Path) -> dict:
    """The shard manifest of the index at `index`, with each shard's folder made absolute."""
    root = Path(index) / FOLDER
    try:
        found = json.loads((root / "manifest.json").read_text())
    except (OSError, ValueError) as exc:
        raise IndexError_(f"{index} has no shards ({exc})", f"run: videorag shard {index} --shards N") from exc
    for shard in found["shards"]:
        shard["folder"] = str(root / shard["folder"])
    return found
