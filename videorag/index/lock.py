"""One writer at a time: an advisory lock file inside the index directory, or for an index on
S3 a lock object created by a conditional write.

Held by everything that writes (ingest, remove, orphan clean-up, compaction, `check --repair`).
The kernel releases a lock file when its process dies, so a `kill -9` never leaves a local index
locked; a lock object of a dead process on this host is taken over, one of another host after
`OBJECT_LOCK_STALE` seconds. Readers never take it.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from ..errors import IndexBusy

log = logging.getLogger(__name__)

LOCK_FILE = ".writer.lock"
_POLL = 0.2  # seconds between tries while waiting
OBJECT_LOCK_STALE = 6 * 3600  # seconds after which another host's lock object counts as abandoned


_LOCKS: dict = {}
_LOCKS_GUARD = threading.Lock()


def writer_lock(directory: Path) -> WriterLock:
    """The writer lock of an index directory, one object per directory in this process (so it is
    re-entrant across the objects that write one index)."""
    key = Path(directory).expanduser().resolve()
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(key, WriterLock(key))


def object_lock(store) -> ObjectLock:
    """The writer lock of an index on S3 (`location.ObjectStore`), one object per URI."""
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(store.uri, ObjectLock(store))


class Lock:
    """`with lock.hold(wait):` — `wait` seconds to wait for another writer (None: as long as it
    takes, 0: fail at once). Re-entrant; threads of one process queue on it too. Subclasses
    take the lock between processes (`_acquire`, `_release`)."""

    def __init__(self, name: str):
        self.name = name
        self._thread = threading.RLock()
        self._depth = 0

    @contextmanager
    def hold(self, wait: float | None = None) -> Iterator[Lock]:
        start = time.monotonic()
        if not self._thread.acquire(timeout=-1 if wait is None else wait):
            raise self._busy("")
        try:
            if self._depth == 0:
                self._acquire(None if wait is None else max(0.0, wait - (time.monotonic() - start)))
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._release()
        finally:
            self._thread.release()

    # -- required of a subclass: taking the lock between processes --------------------------
    def _acquire(self, wait: float | None) -> None:
        """Take the lock within `wait` seconds (None: no limit), else raise IndexBusy."""
        raise NotImplementedError

    def _release(self) -> None:
        raise NotImplementedError

    def _holder(self) -> str:
        """Who holds the lock, as " (pid N)" to append to a message; "" when unknown."""
        raise NotImplementedError

    def _wait(self, try_once: Callable[[], bool], wait: float | None) -> None:
        """Call `try_once()` until it returns True or `wait` seconds pass (then IndexBusy)."""
        deadline = None if wait is None else time.monotonic() + wait
        told = False
        while not try_once():
            if deadline is not None and time.monotonic() >= deadline:
                raise self._busy(self._holder())
            if not told:
                log.warning("index %s is being written by another process%s; waiting for it", self.name, self._holder())
                told = True
            time.sleep(_POLL)

    def _busy(self, holder: str) -> IndexBusy:
        return IndexBusy(
            f"index {self.name} is being written by another writer{holder}",
            "wait for it to finish, or pass --wait SECONDS to queue behind it",
        )


class WriterLock(Lock):
    """A local index's lock: `flock` on a file in its directory."""

    def __init__(self, directory: Path):
        super().__init__(str(directory))
        self.path = Path(directory) / LOCK_FILE
        self._handle: TextIO | None = None  # the open lock file while held (or being taken)

    def _release(self) -> None:
        assert self._handle is not None, "released without being acquired"
        fcntl.flock(self._handle, fcntl.LOCK_UN)
        self._handle.close()
        self._handle = None

    def _holder(self) -> str:
        if self._handle is None:
            return ""
        try:
            return _holder(self._handle)
        except (OSError, ValueError):
            return ""

    def _acquire(self, wait: float | None) -> None:
        handle = self._handle = open(self.path, "a+")  # noqa: SIM115 - held open: it holds the lock until `release`
        try:
            self._wait(lambda: _try_lock(handle), wait)
        except IndexBusy:
            handle.close()
            self._handle = None
            raise
        try:
            handle.seek(0)
            handle.truncate()
            handle.write(f"{os.getpid()}\n")
            handle.flush()
        except OSError:  # a full disk: the lock still holds, only the pid note is missing
            pass


class ObjectLock(Lock):
    """An S3 index's lock: the object `.writer.lock`, created only if absent (If-None-Match),
    holding its owner's host and pid; deleted on release."""

    def __init__(self, store):
        super().__init__(store.uri)
        self.store = store

    def _acquire(self, wait: float | None) -> None:
        self._wait(self._try, wait)

    def _try(self) -> bool:
        owner = {"host": socket.gethostname(), "pid": os.getpid(), "since": time.time()}
        if self.store.put_new(LOCK_FILE, json.dumps(owner)):
            return True
        if self._abandoned():  # (two processes taking over one dead lock at once may both win)
            log.warning("index %s: taking over the writer lock of a writer that is gone%s", self.name, self._holder())
            self.store.delete(LOCK_FILE)
        return False

    def _owner(self) -> dict:
        try:
            return json.loads(self.store.read(LOCK_FILE))
        except (OSError, ValueError):
            return {}

    def _abandoned(self) -> bool:
        owner = self._owner()
        if not owner:
            return False
        if owner.get("host") == socket.gethostname():
            return not _alive(int(owner.get("pid", 0)))
        return time.time() - float(owner.get("since", time.time())) > OBJECT_LOCK_STALE

    def _holder(self) -> str:
        owner = self._owner()
        return f" (pid {owner['pid']} on {owner['host']})" if owner.get("host") else ""

    def _release(self) -> None:
        self.store.delete(LOCK_FILE)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return pid > 0


def _try_lock(handle: TextIO) -> bool:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


def _holder(handle: TextIO) -> str:
    handle.seek(0)
    pid = handle.read().strip()
    return f" (pid {pid})" if pid.isdigit() else ""
