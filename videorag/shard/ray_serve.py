"""The shards as Ray Serve deployments: one application per shard (`replicas` copies of it for
throughput), each replica a `ShardNode` over the shard's folder; `ServeShard` is the router's
client of one. No HTTP proxy is started: the router calls the deployments by handle, and
`videorag serve` keeps its own HTTP API and MCP in front.

On several machines every node that may hold a replica needs the shard folders at the same path
(a shared file system, or the folders copied there)."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from ..errors import ConfigError
from ..registry import require
from .node import ShardNode, ShardQuery

log = logging.getLogger(__name__)
APP = "videorag-{}-shard-{}"  # the shards' folder, hashed; the shard
# A replica's methods run on its main event loop, not a second loop on a second thread: one
# thread hand-over less a call (the work is milliseconds; health checks wait for it).
REPLICA_ENV = {"RAY_SERVE_RUN_USER_CODE_IN_SEPARATE_THREAD": "0"}
# Warnings and errors only: at INFO a replica writes and flushes an access-log line per call
# (measured: 4–7 ms less CPU a 4-shard search of eight calls on 2 cores).
REPLICA_LOGGING = {"log_level": "WARNING"}


class ShardReplica:
    """One replica of one shard's deployment. Its methods are `async` though they compute: Serve
    runs them on the replica's event loop directly (`REPLICA_ENV`: its main loop), where a plain
    method would be handed to a thread pool first (measured: a no-op call 5.1 → 4.0 ms p50 on 2
    cores)."""

    def __init__(self, folder: str):
        self.node = ShardNode(folder)

    async def statistics(self, query: ShardQuery) -> dict:
        return self.node.statistics(query)

    async def found(self, query: ShardQuery) -> list:
        return self.node.found(query)


class ServeShard:
    """The router's client of one shard's deployment (`router.ShardClient`). Calls go to the
    replica's gRPC server (`_by_reference=False`), not through Ray actor calls and the object
    store: with `REPLICA_ENV`, a 4-shard search measured 77 → 40–68 ms p95 on 2 cores
    (`results/scale/README.md`). `name`: the shard's number, as partial answers name it; `app`:
    its Serve application (`app_name`)."""

    def __init__(self, name: str, handle, app: str):
        self.name, self.app, self.handle = name, app, handle.options(_by_reference=False)

    def statistics(self, query: ShardQuery) -> Response:
        return Response(self.handle.statistics.remote(query))

    def found(self, query: ShardQuery) -> Response:
        return Response(self.handle.found.remote(query))


class Response:
    """A deployment's pending answer; one not in by its timeout is cancelled."""

    def __init__(self, response):
        self.response = response

    def result(self, timeout: float):
        try:
            return self.response.result(timeout_s=timeout)
        except TimeoutError:
            self.response.cancel()
            raise


def deploy(manifest: dict, replicas: int = 1, cpus: float | None = None) -> list[ServeShard]:
    """Start (or update) one deployment per shard of `manifest` (`split.manifest`) on the
    connected Ray cluster and return their clients, in shard order. `cpus` per replica (default:
    one, or the cluster's CPUs shared out when it has fewer than replicas: a replica that
    cannot be placed would wait forever)."""
    ray = require("ray", "ray")
    from ray import serve

    serve_logging()
    count = len(manifest["shards"]) * replicas
    cpus = cpus if cpus is not None else min(1.0, float(ray.cluster_resources().get("CPU", 1)) / count)
    serve.start(proxy_location="Disabled")
    names = [app_name(manifest, k) for k in range(len(manifest["shards"]))]
    if not set(names) & set(serve.status().applications):  # new here: its replicas must find free CPUs
        placeable(count, cpus, float(ray.available_resources().get("CPU", 0.0)))
    clients = []
    for k, (shard, name) in enumerate(zip(manifest["shards"], names, strict=True)):
        deployment = serve.deployment(ShardReplica, name=name, num_replicas=replicas)
        app = deployment.options(**replica_options(cpus)).bind(shard["folder"])
        clients.append(ServeShard(str(k), serve.run(app, name=name, route_prefix=None), name))
    log.info("%d shard deployments of %d replicas", len(clients), replicas)
    return clients


def serve_logging() -> None:
    """Serve's own lines on this process ("Started Serve", "Application … is ready") only when
    videorag's are shown at INFO (`--verbose`); its warnings always."""
    shown = logging.INFO if log.isEnabledFor(logging.INFO) else logging.WARNING
    logging.getLogger("ray.serve").setLevel(shown)


def placeable(count: int, cpus: float, free: float) -> None:
    """Refuse `count` replicas of `cpus` CPUs each on a cluster with `free` CPUs: Serve would wait
    for them forever (e.g. another index's shards hold a small cluster's CPUs)."""
    if count * cpus > free + 1e-9:
        raise ConfigError(
            f"the Ray cluster has {free:g} free CPUs; {count} shard replicas need {count * cpus:g}",
            "stop what holds them (another index's shards: `serve shutdown`), add nodes, or use fewer --shard-replicas",
        )


def app_name(manifest: dict, shard: int) -> str:
    """Shard `shard`'s Serve application, named after the folder the shards are in: the shards
    of two indexes served from one cluster stay apart, and serving an index again updates its
    own applications."""
    root = str(Path(manifest["shards"][shard]["folder"]).resolve().parent)
    return APP.format(hashlib.sha1(root.encode()).hexdigest()[:10], shard)


def replica_options(cpus: float) -> dict:
    """A shard deployment's options: its replicas' CPUs, their methods on the main loop
    (`REPLICA_ENV`), their logging (`REPLICA_LOGGING`)."""
    actor = {"num_cpus": cpus, "runtime_env": {"env_vars": REPLICA_ENV}}
    return {"ray_actor_options": actor, "logging_config": REPLICA_LOGGING}


def replicas(client: ServeShard) -> list:
    """The actor handles of the running replicas behind `client` (to watch or stop them)."""
    import ray

    found = ray.util.list_named_actors(all_namespaces=True)
    return [
        ray.get_actor(a["name"], namespace=a["namespace"])
        for a in found
        if "REPLICA" in a["name"] and f"{client.app}#" in a["name"]
    ]


def shutdown(clients: list[ServeShard]) -> None:
    """Remove the shard applications behind `clients` (what `deploy` returned)."""
    from ray import serve

    for client in clients:
        serve.delete(client.app)
