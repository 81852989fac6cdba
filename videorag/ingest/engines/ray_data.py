"""`ray`: ingest on a Ray cluster with Ray Data (`pip install 'videorag[ray]'`).

Two datasets over the files: content hashing (`map`, a task per file) and building
(`map_batches` over a pool of actors — each loads the ASR, embedder, visual model and captioner
once, then decodes, transcribes and embeds one video per call). Records come back to this
process, whose `Ingestor` alone writes them, one video at a time, as they arrive: a task Ray
reruns (a lost worker) yields its video once, and a record written twice would replace itself
(`VideoIndex.add` is keyed by content id). Workers must see the video files and the index
folder (one machine, or a shared filesystem) under the same paths.
"""

from __future__ import annotations

import logging
import os
import pickle
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import numpy as np

from ...cluster import join
from ...config import IngestConfig

log = logging.getLogger(__name__)


class RayEngine:
    name = "ray"

    def __init__(self, config: IngestConfig):
        self.config = config

    def ids(self, paths: list[Path]) -> dict[Path, str | OSError]:
        rows = self._ray().data.from_items([{"path": str(p)} for p in paths]).map(_hash).take_all()
        return {Path(r["path"]): r["id"] or OSError(r["error"]) for r in rows}

    def build(self, ingestor, todo: list[tuple[Path, str]]) -> Iterator[tuple[Path, object]]:
        ray = self._ray()
        workers = self.config.ray_workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        items = [{"path": str(p), "video_id": v} for p, v in todo]
        built = ray.data.from_items(items, override_num_blocks=len(items)).map_batches(
            _Builder,
            batch_size=1,
            num_cpus=1,
            compute=ray.data.ActorPoolStrategy(size=min(workers, len(items))),
            fn_constructor_args=(ingestor.worker,),
            runtime_env={"env_vars": {"OMP_NUM_THREADS": _omp_threads()}},
        )
        for row in built.iter_rows():
            yield Path(row["path"]), lambda r=row: (pickle.loads(r["record"]), pickle.loads(r["result"]))

    def _ray(self):
        ray = join(self.config.ray_address, "--address")
        ray.data.DataContext.get_current().enable_progress_bars = False  # the Ingestor's bar counts videos
        for handler in logging.getLogger("ray.data").handlers:  # Ray Data's console: warnings, not its plans
            if not isinstance(handler, logging.FileHandler):
                handler.setLevel(logging.ERROR)
        return ray


def _omp_threads() -> str:
    """The OpenMP threads of this process for the workers too (Ray would set 1): Whisper's
    timestamps change with the thread count (measured: a segment starting at 5.44 s with 2
    threads starts at 4.48 s with 1), so the same count gives the local engine's transcripts."""
    return os.environ.get("OMP_NUM_THREADS") or str(os.cpu_count() or 1)


def _hash(row: dict) -> dict:
    from ..discover import content_id

    try:
        return {"path": row["path"], "id": content_id(Path(row["path"])), "error": ""}
    except OSError as exc:
        return {"path": row["path"], "id": "", "error": exc.strerror or str(exc)}


class _Builder:
    """A Ray actor: the index's ingest settings and models, loaded once (`make`: the driver's
    `Ingestor.worker`); one video per call."""

    def __init__(self, make):
        self.ingestor = make()

    def __call__(self, batch: dict) -> dict:
        out: dict[str, list] = {"path": [], "record": [], "result": []}
        for path, video_id in zip(batch["path"], batch["video_id"], strict=True):
            record, result = self.ingestor.outcome(Path(path), str(video_id), partial(self.ingestor.frames, Path(path)))
            out["path"].append(str(path))
            out["record"].append(pickle.dumps(record))
            out["result"].append(pickle.dumps(result))
        return {k: np.array(v, dtype=object) for k, v in out.items()}
