"""What one `VideoRAG` (or one service) loads once and shares among its parts: language models,
rerankers, the e5 model, worker pools. Nothing of the kind is held by a module: a part asks its
owner's `Resources` for it by key, the first asker makes it, and `close()` releases everything
the owner made. Two owners side by side share nothing (each loads its own models); parts that
should share one model are given the same `Resources`."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable
from typing import Any

log = logging.getLogger(__name__)


class Resources:
    """Things made once per owner, by key (`get`), released together (`close`) or one by one
    (`release`)."""

    def __init__(self) -> None:
        self._made: dict[Hashable, Any] = {}
        self._making: dict[Hashable, threading.RLock] = {}  # a lock per key being made
        self._lock = threading.Lock()  # guards the two dicts only: held for no longer than a lookup

    def get(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """The thing made for `key`, made by `make()` on the first request. A model loading for
        one key keeps waiting only those who ask for that key (`make` may ask for other keys)."""
        with self._lock:
            if key in self._made:
                return self._made[key]
            making = self._making.setdefault(key, threading.RLock())
        with making:
            with self._lock:
                if key in self._made:  # made while this caller waited
                    return self._made[key]
            thing = make()
            with self._lock:
                self._made[key] = thing
                self._making.pop(key, None)
            return thing

    def __contains__(self, key: Hashable) -> bool:
        return key in self._made

    def release(self, key: Hashable) -> None:
        """Release the thing made for `key` (if any): the next request makes it anew."""
        with self._lock:
            thing = self._made.pop(key, None)
        if thing is not None:
            _release(thing)

    def close(self) -> None:
        """Release what was made, newest first: each thing's `close()` (a model server) or
        `shutdown()` (a thread pool), when it has one. The owner can be used again afterwards:
        what is asked for next is made anew."""
        with self._lock:
            made, self._made = list(self._made.values()), {}
        for thing in reversed(list({id(t): t for t in made}.values())):  # a thing kept under two keys: once
            _release(thing)


def _release(thing: Any) -> None:
    """A thing's `close()` (a model server) or `shutdown()` (a thread pool), when it has one."""
    release = getattr(thing, "close", None) or getattr(thing, "shutdown", None)
    if callable(release):
        try:
            release()
        except Exception as exc:  # closing one thing must not keep the others open
            log.warning("could not release %r: %s", thing, exc)


def own(resources: Resources | None) -> Resources:
    """`resources`, or a new private `Resources` for a part made on its own (a test, a script)."""
    return resources if resources is not None else Resources()
