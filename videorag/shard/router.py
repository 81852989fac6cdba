"""The router of a sharded search: one query fanned out to every shard, what they find merged
into the hits one box would give (`searcher.pick`), within a deadline.

Two rounds for a method whose scores need collection statistics (`textvideorag`: its fusion's
ranges and deviation): every shard's `statistics`, merged (`method.merged`), then every shard's
`found` with the merged constants and a floor under the collection's k-th best video score,
below which a shard locates no moments (`scale.floor`). One round for the others (`bm25`,
`dense`), and for a single shard (its own statistics are the collection's: it searches as one
box does). A shard that fails or misses the deadline is left out and named in `Hits.missing`: a
partial answer, never a hang. A shard lost between the rounds raised the floor with its leaders:
the others are asked again for every video located, in what is left of the deadline.
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from ..config import SearchConfig
from ..errors import ConfigError, VideoRAGError
from ..methods import METHODS
from ..methods.judged import Judged
from ..retrieve.base import Query, SharesStatistics
from ..retrieve.searcher import pick, pool
from ..types import Hits
from .node import ShardQuery

log = logging.getLogger(__name__)


class ShardsDown(VideoRAGError):
    """No shard answered within the deadline."""


class Pending(Protocol):
    def result(self, timeout: float) -> Any: ...


class ShardClient(Protocol):
    """How the router reaches one shard (`ray_serve.ServeShard`, or a test double)."""

    name: str

    def statistics(self, query: ShardQuery) -> Pending: ...

    def found(self, query: ShardQuery) -> Pending: ...


class Router:
    """Searches the shards behind `clients` as one index: `search` has `Searcher.search`'s
    signature, so `VideoRAG.search` (CLI, HTTP, MCP) runs over it unchanged. `embed` makes a
    query's vector (once, here); `deadline` is in seconds, for both rounds together."""

    def __init__(self, clients: Sequence[ShardClient], embed: Callable[[str], np.ndarray], deadline: float = 1.0):
        self.clients, self.embed, self.deadline = list(clients), embed, deadline

    @property
    def corpus(self):
        raise _one_box()

    def context(self, *args):
        raise _one_box()

    def search(
        self,
        query: Query | str,
        method,
        config: SearchConfig,
        top_k: int | None = None,
        moments: bool = False,
        timings: dict | None = None,
        context=None,
    ) -> Hits:
        """Hits best first, as `Searcher.search` gives over the whole index; `Hits.missing`
        names the shards that did not answer in time."""
        name = method.name
        if "shardable" not in METHODS.traits(name):
            shardable = ", ".join(n for n in METHODS.names() if "shardable" in METHODS.traits(n))
            raise ConfigError(f"method {name!r} does not run on a sharded index", f"use one of: {shardable}")
        if isinstance(method, Judged):
            raise ConfigError("the judge does not run on a sharded index", "search it with --no-judge")
        query = Query(query) if isinstance(query, str) else query
        top_k = top_k or config.top_k
        start = time.perf_counter()
        asked = ShardQuery(
            uuid.uuid4().hex,
            query.text,
            self.embed(query.text),
            name,
            config,
            top_k,
            moments,
            question=query.question,
        )
        found, missing = self._rounds(asked, method, pool(top_k, moments, config), start)
        hits = Hits(pick(found, top_k, moments, config))
        hits.missing = tuple(missing)
        if timings is not None:
            timings["shards"] = time.perf_counter() - start
        return hits

    def _rounds(self, asked: ShardQuery, method, shown: int, start: float) -> tuple[list, list[str]]:
        """Every answering shard's `found` (`Found`s), and the names of those that did not answer."""
        live = list(self.clients)
        if not isinstance(method, SharesStatistics) or len(live) == 1:  # one shard's statistics are the collection's
            found, _, late = self._gather(live, lambda c: c.found(asked), _Deadline(self.deadline))
            return [f for part in found for f in part], late
        # each round gets half the deadline: a late shard in the first leaves time for the second
        asked.leaders = shown
        parts, live, missing = self._gather(live, lambda c: c.statistics(asked), _Deadline(self.deadline / 2))
        asked.shared = method.merged(parts)
        asked.floor = method.floor(parts, asked.shared, shown)
        found, live, late = self._gather(live, lambda c: c.found(asked), _Deadline(self.deadline / 2))
        if late and asked.floor > -math.inf:  # lost between the rounds: its leaders raised the others' floor
            asked.floor = -math.inf
            try:  # again, every video located, in what is left of the deadline
                left = _Deadline(self.deadline - (time.perf_counter() - start))
                found, _, again = self._gather(live, lambda c: c.found(asked), left)
                late += again
            except ShardsDown:
                log.warning("shards %s did not answer again: the videos below the floor are left out", late)
        return [f for part in found for f in part], missing + late

    def _gather(self, clients: list[ShardClient], call: Callable[[ShardClient], Pending], clock: _Deadline):
        """(answers, the clients that gave them, names of those that did not) by the deadline."""
        pending: list[tuple[ShardClient, Pending | None]] = []
        for client in clients:
            try:
                pending.append((client, call(client)))
            except Exception as exc:  # a shard whose handle is gone: left out, never fatal
                log.warning("shard %s unreachable: %s", client.name, exc)
                pending.append((client, None))
        answers, answered, missing = [], [], []
        for client, waiting in pending:
            try:
                if waiting is None:
                    raise ConnectionError("unreachable")
                answers.append(waiting.result(clock.left()))
                answered.append(client)
            except VideoRAGError:
                raise  # the query itself is wrong (a bad method setting): every shard says so
            except Exception as exc:  # late, failed or dead: the answer is partial
                log.warning("shard %s left out: %s", client.name, exc.__class__.__name__)
                missing.append(client.name)
        if not answered:
            raise ShardsDown(
                f"no shard answered within {self.deadline:g} s", "check the Ray cluster (`ray status`) and the shards"
            )
        return answers, answered, missing


def _one_box() -> ConfigError:
    return ConfigError(
        "this needs the whole corpus on one box: a sharded index answers searches only",
        "serve the index without --ray for ask, evidence and excerpts",
    )


class _Deadline:
    def __init__(self, seconds: float):
        self.end = time.perf_counter() + seconds

    def left(self) -> float:
        """Seconds left (at least a millisecond, so a finished answer is still collected)."""
        return max(self.end - time.perf_counter(), 1e-3)


class ShardedLive:
    """`VideoRAG.live` over a router: `get()` is the router, whatever the local index holds."""

    def __init__(self, router: Router):
        self.router = router

    def get(self) -> Router:
        return self.router
