"""One shard's part of a search: the same `Searcher` a single box uses, over the shard's snapshot,
with the query's embedding made once by the router and the collection's fusion constants handed
back to it between the two rounds."""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import snapshot
from ..config import SearchConfig
from ..errors import IndexError_
from ..methods import create_method
from ..retrieve.base import Query
from ..retrieve.searcher import Found, QueryContext, Searcher
from .split import ROWS

KEPT = 256  # query contexts kept between a query's two rounds


@dataclass
class ShardQuery:
    """A query as the router sends it to every shard (`id` ties its two rounds together)."""

    id: str
    text: str
    vector: np.ndarray
    method: str
    config: SearchConfig
    top_k: int
    moments: bool = False
    question: str | None = None
    shared: dict = field(default_factory=dict)  # round 2: level name → the collection's Scale
    leaders: int = 0  # round 1: report this many best videos' `Leaders` (several shards: as many as may be shown)
    floor: float = -math.inf  # round 2: moments only for videos scoring at least this (`scale.floor`)


class ShardNode:
    """Serves one shard folder (`videorag.shard.split`): `statistics` (round 1) and `found`
    (round 2). Safe to share between threads."""

    def __init__(self, folder: str):
        found = snapshot.manifest(folder)
        corpus = snapshot.load(folder, found["token"]) if found is not None else None
        if corpus is None:
            raise IndexError_(f"no readable shard snapshot at {folder}", "run `videorag shard INDEX --shards N` again")
        self.folder = folder
        self.searcher = Searcher(corpus, embedder=None)
        rows = Path(folder) / ROWS
        self.searcher.rows = np.load(rows) if rows.exists() else None
        self._contexts: OrderedDict[str, QueryContext] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def videos(self) -> int:
        return len(self.searcher.corpus.video_ids)

    def statistics(self, query: ShardQuery) -> dict:
        """The method's per-level statistics for the query, with `query.leaders`
        (`TextVideoRAG.statistics`)."""
        return self._method(query).statistics(self._context(query), query.leaders)

    def found(self, query: ShardQuery) -> list[Found]:
        """This shard's best videos, scored with `query.shared`, with moments where they score
        at least `query.floor`."""
        qc = self._context(query, done=True).scaled(query.shared)
        return self.searcher.found(qc, self._method(query), query.top_k, query.moments, query.floor)

    def _method(self, query: ShardQuery):
        return create_method(query.method, query.config)

    def _context(self, query: ShardQuery, done: bool = False) -> QueryContext:
        """The query's context: the one round 1 made (its scores computed once), else new."""
        with self._lock:
            qc = self._contexts.pop(query.id, None) if done else self._contexts.get(query.id)
            if qc is None:
                qc = self.searcher.context(Query(query.text, query.question), query.config).given(query.vector)
                if not done:
                    self._contexts[query.id] = qc
                    while len(self._contexts) > KEPT:
                        self._contexts.popitem(last=False)
            return qc
