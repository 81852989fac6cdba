"""The searcher of a live index: made over the index's search snapshot (memory-mapped), renewed
when the index changes (here or in another process), saved first when missing or stale. What the
searcher reads is the snapshot alone; frame images come through the frame store it is given."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from .. import snapshot
from ..embed import fingerprint_of
from ..index.meta import check_embedder, open_meta
from ..snapshot.corpus import Corpus
from .searcher import Searcher

log = logging.getLogger(__name__)


class LiveSearcher:
    """`get()` → the current `Searcher` of the index at `location`.

    `embedder()` gives the query embedder; `visual()` makes the frame embedder (on first use);
    `frames` the `FrameStore`; `resources` the owner's models (rerankers, pools: each searcher made
    here uses the same); `renew()` saves the snapshot anew and returns (corpus, token) (the
    library's `renew_snapshot`); `read()` reads the corpus from the index without saving it (for
    an index this process cannot write)."""

    def __init__(
        self,
        location,
        embedder: Callable,
        renew: Callable[[], tuple[Corpus, str]],
        read: Callable[[], tuple[Corpus, str]],
        visual=None,
        frames=None,
        resources=None,
    ):
        self.location = location
        self._embedder, self._renew, self._read = embedder, renew, read
        self._visual, self._frames, self._resources = visual, frames, resources
        self._searcher: Searcher | None = None
        self._version: str | None = None
        self._lock = threading.Lock()

    def get(self) -> Searcher:
        with self._lock:
            made = snapshot.token(self.location)
            if self._searcher is None or made != self._version:
                query = self._embedder()  # checked first: a wrong model builds nothing
                check_embedder(
                    self.location,
                    open_meta(self.location),
                    query.model_name,
                    query.dim,
                    fingerprint_of(query),
                )
                corpus = snapshot.load(self.location, made)
                if corpus is None:
                    corpus, made = self._renewed()
                self._searcher, self._version = (
                    Searcher(corpus, query, self._visual, self._frames, self._resources),
                    made,
                )
            return self._searcher

    def _renewed(self) -> tuple[Corpus, str]:
        """A stale or missing snapshot: renewed; a read-only index is searched from memory."""
        try:
            return self._renew()
        except OSError as exc:
            log.info("search snapshot not saved (%s): searching from memory", exc)
            return self._read()
