"""`videorag serve --ray ADDRESS`: the served `VideoRAG` searches its index's shards on Ray."""

from __future__ import annotations

import logging
from collections.abc import Callable

from .. import snapshot
from ..cluster import join
from ..embed import embed_queries, fingerprint_of
from ..index.meta import check_embedder, open_meta
from . import ray_serve
from .router import Router, ShardedLive
from .split import manifest

log = logging.getLogger(__name__)


def sharded(address: str, replicas: int = 1, deadline: float = 1.0) -> Callable[..., ShardedLive]:
    """A `VideoRAG`'s `live`, given to its constructor: its searches (HTTP, MCP and hand-offs
    alike) go to its index's shards, deployed on the Ray cluster at `address` as it is made."""
    return lambda rag: deploy(rag, address, replicas, deadline)


def deploy(rag, address: str, replicas: int = 1, deadline: float = 1.0) -> ShardedLive:
    """Deploy the shards of `rag`'s index on the Ray cluster at `address`: the router over them."""
    found = manifest(rag.location.local)
    if found["token"] != snapshot.token(rag.location):
        log.warning("the shards are older than the index: run `videorag shard` again to search what changed since")
    query = rag.query_embedder  # the index's own model, checked before anything is deployed
    fingerprint = fingerprint_of(query)
    check_embedder(rag.location, open_meta(rag.location), query.model_name, query.dim, fingerprint)
    join(address, "--ray")
    clients = ray_serve.deploy(found, replicas)
    embed = lambda text: embed_queries(query, [text])[0]  # noqa: E731
    return ShardedLive(Router(clients, embed, deadline))
