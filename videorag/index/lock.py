"""One writer at a time: an advisory lock file inside the index directory.

Held by everything that writes (ingest, remove, orphan clean-up, compaction, `check --repair`).
The kernel releases it when its process dies, so a `kill -9` never leaves the index locked.
Readers never take it.
"""
from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import IndexBusy

log = logging.getLogger(__name__)

LOCK_FILE = ".writer.lock"
_POLL = 0.2  # seconds between tries while waiting


_LOCKS: dict[Path, "WriterLock"] = {}
_LOCKS_GUARD = threading.Lock()


def writer_lock(directory: Path) -> "WriterLock":
    """The writer lock of an index directory, one object per directory in this process (so it is
    re-entrant across the objects that write one index)."""
    key = Path(directory).expanduser().resolve()
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(key, WriterLock(key))


class WriterLock:
    """`with lock.hold(wait):` — `wait` seconds to wait for another writer (None: as long as it
    takes, 0: fail at once). Re-entrant; threads of one process queue on it too."""

    def __init__(self, directory: Path):
        self.path = Path(directory) / LOCK_FILE
        self._thread = threading.RLock()
        self._handle = None
        self._depth = 0

    @contextmanager
    def hold(self, wait: float | None = None) -> Iterator["WriterLock"]:
        start = time.monotonic()
        if not self._thread.acquire(timeout=-1 if wait is None else wait):
            raise self._busy("")
        try:
            if self._depth == 0:
                self._handle = self._acquire(None if wait is None else max(0.0, wait - (time.monotonic() - start)))
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
                if self._depth == 0:
                    fcntl.flock(self._handle, fcntl.LOCK_UN)
                    self._handle.close()
                    self._handle = None
        finally:
            self._thread.release()

    def _acquire(self, wait: float | None):
        handle = open(self.path, "a+")
        deadline = None if wait is None else time.monotonic() + wait
        told = False
        while not _try_lock(handle):
            if deadline is not None and time.monotonic() >= deadline:
                holder = _holder(handle)
                handle.close()
                raise self._busy(holder)
            if not told:
                log.warning("index %s is being written by another process%s; waiting for it",
                            self.path.parent, _holder(handle))
                told = True
            time.sleep(_POLL)
        try:
            handle.seek(0)
            handle.truncate()
            handle.write(f"{os.getpid()}\n")
            handle.flush()
        except OSError:  # a full disk: the lock still holds, only the pid note is missing
            pass
        return handle

    def _busy(self, holder: str) -> IndexBusy:
        return IndexBusy(f"index {self.path.parent} is being written by another writer{holder}",
                           "wait for it to finish, or pass --wait SECONDS to queue behind it")


def _try_lock(handle) -> bool:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


def _holder(handle) -> str:
    handle.seek(0)
    pid = handle.read().strip()
    return f" (pid {pid})" if pid.isdigit() else ""
