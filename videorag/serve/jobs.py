"""Index jobs run in the background, one at a time, with progress a client can poll or stream."""

from __future__ import annotations

import queue
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field

from ..errors import VideoRAGError
from ..types import FileResult, IngestReport

KEEP_FINISHED = 200  # finished jobs remembered for GET /jobs/{id}; older ones are forgotten


@dataclass
class Job:
    """One `POST /index`: its state (queued, running, done, failed) and progress."""

    id: str
    paths: list[str]
    state: str = "queued"
    done: int = 0
    total: int = 0
    current: str | None = None
    stage: str | None = None  # what the current file goes through: decode, transcribe, embed, ocr…
    eta_seconds: float | None = None  # the whole job's time left, once there is an estimate
    files: list[dict] = field(default_factory=list)  # per file: path, status, error, warnings
    summary: str | None = None
    error: str | None = None
    revision: int = 0  # bumped on every change (streams send a snapshot per revision)

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "revision"}

    @property
    def finished(self) -> bool:
        return self.state in ("done", "failed")


class Jobs:
    """Runs `index(paths, progress, stages)` jobs on one worker thread (writes are serial anyway)."""

    def __init__(self, index: Callable[[list[str], Callable, Callable], IngestReport]):
        self._index = index
        self._jobs: dict[str, Job] = {}
        self._changed = threading.Condition()
        self._queue: queue.Queue[Job] = queue.Queue()
        # a daemon: stopping the server never waits for an ingest (an interrupted one is finished
        # by the next run, as after a crash)
        self._worker = threading.Thread(target=self._work, name="videorag-jobs", daemon=True)
        self._worker.start()

    def start(self, paths: list[str]) -> Job:
        job = Job(uuid.uuid4().hex[:12], list(paths))
        with self._changed:
            self._jobs[job.id] = job
            finished = [j for j in self._jobs.values() if j.finished]
            for old in finished[: max(0, len(finished) - KEEP_FINISHED)]:  # oldest first (insertion order)
                del self._jobs[old.id]
        self._queue.put(job)
        return job

    def get(self, job_id: str) -> Job:
        """The job (KeyError when unknown)."""
        with self._changed:
            return self._jobs[job_id]

    def events(self, job_id: str, heartbeat: float = 15.0) -> Iterator[dict]:
        """Snapshots of the job, one per change, until it has finished."""
        job, seen = self.get(job_id), -1
        while True:
            with self._changed:
                if job.revision == seen:
                    self._changed.wait(heartbeat)
                snapshot, seen = job.to_dict(), job.revision
            yield snapshot
            if snapshot["state"] in ("done", "failed"):
                return

    def shutdown(self) -> None:
        """Queued jobs are dropped; a running one stops with the process."""
        with self._changed:
            for job in self._jobs.values():
                if job.state == "queued":
                    job.state, job.error = "failed", "the server stopped before this job started"
            self._changed.notify_all()

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job.state == "queued":
                self._run(job)

    def _update(self, job: Job, **changes) -> None:
        with self._changed:
            for key, value in changes.items():
                setattr(job, key, value)
            job.revision += 1
            self._changed.notify_all()

    def _run(self, job: Job) -> None:
        self._update(job, state="running")

        def progress(done: int, total: int, current: str, result: FileResult | None) -> None:
            files = job.files + ([_file(result)] if result else [])
            self._update(
                job,
                done=done,
                total=total,
                current=current if result is None else None,
                files=files,
                **({} if result is None else {"stage": None}),
            )

        def stages(current: str, stage: str, left: float | None) -> None:
            self._update(job, current=current, stage=stage, eta_seconds=None if left is None else round(left, 1))

        try:
            report = self._index(job.paths, progress, stages)
        except VideoRAGError as exc:
            self._update(job, state="failed", error=str(exc))
            return
        except Exception as exc:  # a job must end, whatever happened
            self._update(job, state="failed", error=f"unexpected {exc.__class__.__name__}: {exc}")
            return
        self._update(
            job,
            state="done",
            files=[_file(f) for f in report.files],
            summary=report.summary(),
            stage=None,
            eta_seconds=0.0,
        )


def _file(result: FileResult) -> dict:
    return {
        "path": result.path,
        "status": result.status,
        "video_id": result.video_id,
        "error": result.error,
        "warnings": list(result.warnings),
    }
