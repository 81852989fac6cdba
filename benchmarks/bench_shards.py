"""Sharded search on Ray Serve against one box: the same top-10, the latency it adds, a killed
shard's partial answer.

The corpus is real: the first `--transcripts` WikiHowQA transcripts as 30-word segments with
their real MiniLM vectors (`ann_data.real`), chunks of 4 segments and whole videos (their vectors
the normalised mean of their segments': the benchmark measures routing, not chunk quality);
`--copies C` repeats it C times with noisy vectors (same texts) for a larger collection. Queries:
real WikiHowQA questions with their precomputed vectors, so no figure includes query embedding.
"One box" is the whole corpus's snapshot searched in this process (ANN indexes where a level has
≥ `ann_min_rows` units, as a served index has them).

Per shard count (`--shards 1,2,4`) the shards are written (`shard.split.write`); every count's
shards are deployed at once on a local Ray cluster started here (one replica each), and every
query is searched on one box and through every count's router (`textvideorag`, top 10), one
after another in a rotating order, so the machine's drift in speed falls on all alike; each way's
`machine_cpu_ms` is the whole machine's CPU a search (`/proc/stat`: router, replicas, Ray's own
processes), a figure the drift in speed moves less than latency, and `router_cpu_ms` this
process's share (the router and its Serve handles; one box: the search). On one box
all shards share its cores: this simulates N machines, it does not measure them. The per-shard
cost (in-process, no Ray) gives the model for N machines: latency ≈ router (embedding + merge)
+ 2 round trips + the slowest shard's two rounds.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from videorag.cluster import join
from videorag.config import SearchConfig
from videorag.methods import create_method
from videorag.retrieve import Corpus, Level, Searcher
from videorag.shard import ray_serve
from videorag.shard.node import ShardNode, ShardQuery
from videorag.shard.router import Router
from videorag.shard.split import write

from . import ann_data
from .bench_ann import BENCH

CHUNK = 4  # segments per chunk


def options(parser) -> None:
    parser.add_argument("--transcripts", type=int, default=2000, help="WikiHowQA transcripts (videos) embedded")
    parser.add_argument("--copies", type=int, default=1, help="the videos repeated with noisy vectors")
    parser.add_argument("--shards", default="1,2,4")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--deadline", type=float, default=1.0)


def main(run) -> dict:
    args = run.args
    docs, questions, owner = _segments(run.work, args.transcripts)
    vectors, query_vectors = ann_data.real(run.work, args.transcripts, BENCH)
    corpus = _corpus(owner, docs, vectors, args.copies)
    run.label = str(len(corpus.segments))
    pick = np.random.default_rng(1).permutation(len(questions))[: args.queries]
    queries = [(questions[i], query_vectors[i]) for i in pick]
    config = SearchConfig()
    method = create_method("textvideorag", config)
    counts = [int(n) for n in args.shards.split(",")]
    one_box = _one_box(run.work / "one-box", corpus, config)
    shards = {n: _shards(run.work / f"shards-{n}", corpus, n, queries, method, config) for n in counts}
    results = {
        "command": run.command,
        "videos": len(corpus.video_ids),
        "segments": len(corpus.segments),
        "queries": len(queries),
        "shards": {str(n): found for n, (found, _) in shards.items()},
    }
    vectors = {text: vector for text, vector in queries}
    routers = _deployed({n: made for n, (_, made) in shards.items()}, vectors.__getitem__, args.deadline)
    timed = _interleaved(one_box, routers, queries, method, config)
    results["one_box"] = timed.pop("one box")["latency"]
    print("one box", results["one_box"], flush=True)
    for n, router in routers.items():
        found = results["shards"][str(n)]
        found.update(timed[n])
        if n > 1:
            found["killed_shard"] = _killed(router, queries[0][0], method, config)
        print(n, "shards", found, flush=True)
    ray_serve.shutdown([c for router in routers.values() for c in router.clients])
    for n in counts:
        results["shards"][str(n)]["two_empty_rounds"] = _transport(n, queries[0][1])
    return results


def _segments(work: Path, transcripts: int) -> tuple[list[str], list[str], np.ndarray]:
    """(segment texts, questions, each segment's video) as `ann_data.real` embedded them."""
    from videorag.eval.datasets import load_transcripts

    texts = list(load_transcripts(BENCH / "transcripts.jsonl.gz").values())[:transcripts]
    docs, owner = [], []
    for v, t in enumerate(texts):
        words = t.split()
        for i in range(0, len(words), ann_data.WINDOW):
            docs.append(" ".join(words[i : i + ann_data.WINDOW]))
            owner.append(v)
    _, questions = ann_data._texts(BENCH, transcripts)
    return docs, questions, np.asarray(owner)


def _corpus(owner: np.ndarray, docs: list[str], vectors: np.ndarray, copies: int) -> Corpus:
    rng = np.random.default_rng(0)
    videos = int(owner.max()) + 1
    owners = np.concatenate([owner + c * videos for c in range(copies)])
    parts = [vectors] + [_noisy(vectors, rng) for _ in range(copies - 1)]
    segment_vectors = np.concatenate(parts)
    all_docs = docs * copies
    starts = _positions(owners) * 10.0
    segments = Level.build(owners, starts, starts + 10.0, all_docs, segment_vectors)
    chunk_key = owners * 100_000 + _positions(owners) // CHUNK
    chunks = _grouped(chunk_key, owners, segment_vectors, all_docs, 10.0 * CHUNK)
    whole = _grouped(owners, owners, segment_vectors, all_docs, 0.0)
    ids = [f"v{v}" for v in range(videos * copies)]
    return Corpus(ids, [f"/bench/{i}.mp4" for i in ids], segments, chunks, whole)


def _noisy(vectors: np.ndarray, rng) -> np.ndarray:
    noisy = vectors + 0.3 * rng.standard_normal(vectors.shape, np.float32) / np.sqrt(vectors.shape[1])
    return (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).astype(np.float32)


def _positions(owners: np.ndarray) -> np.ndarray:
    """Each item's position inside its video (owners sorted)."""
    first = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
    return np.arange(len(owners)) - np.repeat(first, np.diff(np.r_[first, len(owners)]))


def _grouped(key: np.ndarray, owners: np.ndarray, vectors: np.ndarray, docs: list[str], seconds: float) -> Level:
    """Items grouped by `key` (consecutive): joined texts, normalised mean vectors."""
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    bounds = np.r_[first, len(key)]
    summed = np.add.reduceat(vectors, first, axis=0)
    summed /= np.linalg.norm(summed, axis=1, keepdims=True)
    texts = [" ".join(docs[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    starts = _positions(owners[first]) * seconds
    return Level.build(owners[first], starts, starts + max(seconds, 1.0), texts, summed)


def _one_box(folder: Path, corpus: Corpus, config) -> Searcher:
    """The whole corpus as one box serves it: its snapshot (ANN indexes on large levels)."""
    write(corpus, "bench", folder, 1, config.ann_min_rows, config.ann_compress_rows)
    return Searcher(ShardNode(str(folder / "0")).searcher.corpus, embedder=None)


def _shards(folder: Path, corpus: Corpus, n: int, queries, method, config) -> tuple[dict, dict]:
    """({write_s, per-shard cost in-process}, the manifest) of `corpus` written as `n` shards."""
    t0 = time.perf_counter()
    made = write(corpus, "bench", folder, n, config.ann_min_rows, config.ann_compress_rows)
    written = round(time.perf_counter() - t0, 1)
    per_shard = _shard_cost(folder, n, queries[:100], method, config)
    made = {**made, "shards": [{**s, "folder": str(folder / s["folder"])} for s in made["shards"]]}
    return {"write_s": written, "per_shard_in_process": per_shard}, made


def _deployed(made: dict[int, dict], embed, deadline: float) -> dict[int, Router]:
    """Every shard count's shards deployed at once on a local Ray cluster, one replica each
    (the cores shared out so all are placed), and their routers."""
    import ray

    join("local", "--ray")
    cpus = float(ray.cluster_resources().get("CPU", 1)) / sum(len(m["shards"]) for m in made.values())
    routers = {}
    for n, manifest in made.items():
        t0 = time.perf_counter()
        clients = ray_serve.deploy(manifest, replicas=1, cpus=cpus)
        print(n, "shards deployed in", round(time.perf_counter() - t0, 1), "s", flush=True)
        routers[n] = Router(clients, embed, deadline)
    return routers


def _interleaved(one_box: Searcher, routers: dict[int, Router], queries, method, config) -> dict:
    """Every query on one box and through every router, one after another in a rotating order
    (20 warm-up queries first): latencies of one stretch of time, so the box's own drift in
    speed falls on every shard count alike. Each count's top 10 compared with one box's."""
    ways: list = ["one box", *routers]
    times: dict = {way: [] for way in ways}
    tops: dict = {way: [] for way in ways}
    cpu, own = dict.fromkeys(ways, 0.0), dict.fromkeys(ways, 0.0)
    partial = dict.fromkeys(routers, 0)
    for i, (text, vector) in enumerate(queries[:20] + queries):
        for way in ways[i % len(ways):] + ways[: i % len(ways)]:
            start, busy, mine = time.perf_counter(), _machine_cpu(), time.process_time()
            if way == "one box":
                hits = one_box.search(text, method, config, 10, context=one_box.context(text, config).given(vector))
            else:
                hits = routers[way].search(text, method, config, 10)
                partial[way] += bool(hits.missing)
            if i >= 20:
                times[way].append(time.perf_counter() - start)
                cpu[way] += _machine_cpu() - busy
                own[way] += time.process_time() - mine
                tops[way].append([h.video_id for h in hits])
    spent = (("machine", cpu), ("router", own))
    cost = {way: {f"{name}_cpu_ms": round(of[way] / len(queries) * 1000, 1) for name, of in spent} for way in ways}
    found: dict = {"one box": {"latency": {**_latency(times["one box"]), **cost["one box"]}}}
    for n in routers:
        pairs = list(zip(tops[n], tops["one box"]))
        found[n] = {
            "latency": {**_latency(times[n]), **cost[n]},
            "same_top10": round(sum(a == b for a, b in pairs) / len(pairs), 4),
            "same_top10_set": round(sum(set(a) == set(b) for a, b in pairs) / len(pairs), 4),
            "partial": partial[n],
        }
    return found


class _Empty:
    """A shard that does nothing: what the transport alone costs a search."""

    async def call(self, query):  # async, as `ShardReplica`'s methods
        return query


def _transport(n: int, vector: np.ndarray, calls: int = 200) -> dict:
    """Two rounds of `n` calls at once (a search's fan-out) to shards that do nothing: through
    Ray Serve handles (as the router calls them: gRPC, methods on the replica's main loop) and
    through plain Ray actors, for comparison."""
    import ray
    from ray import serve

    asked = {"vector": vector, "text": "how do I fix a bike chain"}
    names = [f"videorag-empty-{k}" for k in range(n)]
    deployments = [serve.deployment(_Empty, name=name).options(**ray_serve.replica_options(1 / n)) for name in names]
    handles = [ray_serve.ServeShard(name, serve.run(d.bind(), name=name, route_prefix=None), name).handle
               for name, d in zip(names, deployments)]
    served = _rounds(lambda: [r.result(timeout_s=5) for r in [h.call.remote(asked) for h in handles]], calls)
    for name in names:
        serve.delete(name)
    actors = [ray.remote(num_cpus=1 / n)(_Empty).remote() for _ in range(n)]
    plain = _rounds(lambda: ray.get([a.call.remote(asked) for a in actors]), calls)
    for actor in actors:
        ray.kill(actor)
    return {"ray_serve": served, "ray_actors": plain}


def _rounds(fan_out, calls: int) -> dict:
    for _ in range(20):
        fan_out()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fan_out(), fan_out()
        times.append(time.perf_counter() - start)
    return _latency(times)


def _shard_cost(folder: Path, n: int, queries, method, config) -> dict:
    """Each shard's rounds in this process (no Ray), as the router asks them (one round at one
    shard): what one machine per shard would spend."""
    nodes = [ShardNode(str(folder / str(k))) for k in range(n)]
    times = []
    for i, (text, vector) in enumerate(queries):
        asked = ShardQuery(f"cost-{i}", text, vector, method.name, config, 10, leaders=10)
        first = 0.0
        if n > 1:
            parts = []
            for node in nodes:
                start = time.perf_counter()
                parts.append(node.statistics(asked))
                first = max(first, time.perf_counter() - start)
            asked.shared = method.merged(parts)
            asked.floor = method.floor(parts, asked.shared, 10)
        second = 0.0
        for node in nodes:
            start = time.perf_counter()
            node.found(asked)
            second = max(second, time.perf_counter() - start)
        times.append(first + second)
    return _latency(times)


def _killed(router: Router, text: str, method, config) -> dict:
    """Kill shard 1's replica; the next search's time and what it says is missing."""
    import ray

    for replica in ray_serve.replicas(router.clients[1]):
        ray.kill(replica, no_restart=True)
    start = time.perf_counter()
    hits = router.search(text, method, config, 10)
    return {"seconds": round(time.perf_counter() - start, 3), "missing": list(hits.missing), "hits": len(hits)}


def _machine_cpu() -> float:
    """Seconds of CPU the whole machine has spent (every process, `/proc/stat`; 0 where there is
    none): summed over a way's searches, its CPU a search, Ray's processes and the replicas'
    included, background alike for every way (interleaved)."""
    try:
        with open("/proc/stat") as stat:
            fields = stat.readline().split()[1:]
    except OSError:
        return 0.0
    idle = int(fields[3]) + int(fields[4])  # idle, iowait
    return (sum(int(f) for f in fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _latency(times: list[float]) -> dict:
    ms = np.asarray(times) * 1000
    return {"p50_ms": round(float(np.percentile(ms, 50)), 2), "p95_ms": round(float(np.percentile(ms, 95)), 2)}
