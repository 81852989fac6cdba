"""`videorag serve --ray ADDRESS`: the served `VideoRAG` searches its index's shards on Ray."""

from __future__ import annotations

import logging

from ..cluster import join
from ..embed import embed_queries
from ..index.meta import check_embedder, open_meta
from ..retrieve import snapshot
from . import ray_serve
from .router import Router, ShardedLive
from .split import manifest

log = logging.getLogger(__name__)


def attach(rag, address: str, replicas: int = 1, deadline: float = 1.0) -> int:
    """Deploy the shards of `rag`'s index on the Ray cluster at `address` and route `rag`'s
    searches through them (HTTP, MCP and hand-offs alike). Returns the number of shards."""
    found = manifest(rag.location.local)
    if found["token"] != snapshot.token(rag.location):
        log.warning("the shards are older than the index: run `videorag shard` again to search what changed since")
    query = rag.query_embedder  # the index's own model, checked before anything is deployed
    fingerprint = getattr(query, "fingerprint", None)
    check_embedder(rag.location, open_meta(rag.location), query.model_name, query.dim, fingerprint)
    join(address, "--ray")
    clients = ray_serve.deploy(found, replicas)
    embed = lambda text: embed_queries(query, [text])[0]  # noqa: E731
    rag.live = ShardedLive(Router(clients, embed, deadline))
    return len(clients)
