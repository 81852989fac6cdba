"""Sharded search on Ray Serve against one box: the same top-10, the latency it adds, a killed
shard's partial answer.

The corpus is real: the first `--transcripts` WikiHowQA transcripts as 30-word segments with
their real MiniLM vectors (`ann_data.real`), chunks of 4 segments and whole videos (their vectors
the normalised mean of their segments': the benchmark measures routing, not chunk quality);
`--copies C` repeats it C times with noisy vectors (same texts) for a larger collection. Queries:
real WikiHowQA questions with their precomputed vectors, so no figure includes query embedding.
"One box" is the whole corpus's snapshot searched in this process (ANN indexes where a level has
≥ `ann_min_rows` units, as a served index has them).

Per shard count (`--shards 1,2,4`): the shards are written (`shard.split.write`), deployed on a
local Ray cluster started here (one replica each), and every query is searched through the
router (`textvideorag`, top 10), one at a time. On one box all shards share its cores: this
simulates N machines, it does not measure them. The per-shard cost (in-process, no Ray) gives
the model for N machines: latency ≈ router (embedding + merge) + 2 round trips + the slowest
shard's two rounds.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from videorag.config import SearchConfig
from videorag.methods import create_method
from videorag.retrieve import Corpus, Level, Searcher
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
    whole = _one_box(run.work / "one-box", corpus, queries, method, config)
    results = {
        "command": run.command,
        "videos": len(corpus.video_ids),
        "segments": len(corpus.segments),
        "queries": len(queries),
        "one_box": whole["figures"],
        "shards": {},
    }
    print("one box", whole["figures"], flush=True)
    for n in map(int, args.shards.split(",")):
        found = _sharded(run.work / f"shards-{n}", corpus, n, queries, method, config, whole["top"], args.deadline)
        results["shards"][str(n)] = found
        print(n, "shards", found, flush=True)
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


def _one_box(folder: Path, corpus: Corpus, queries, method, config) -> dict:
    """The whole corpus as one box serves it: its snapshot (ANN indexes on large levels)."""
    write(corpus, "bench", folder, 1, config.ann_min_rows, config.ann_compress_rows)
    searcher = Searcher(ShardNode(str(folder / "0")).searcher.corpus, embedder=None)
    times, tops = [], []
    for text, vector in queries[:20] + queries:
        start = time.perf_counter()
        qc = searcher.context(text, config).given(vector)
        hits = searcher.search(text, method, config, 10, context=qc)
        times.append(time.perf_counter() - start)
        tops.append([h.video_id for h in hits])
    return {"figures": _latency(times[20:]), "top": tops[20:]}


def _sharded(folder: Path, corpus: Corpus, n: int, queries, method, config, expected, deadline: float) -> dict:
    from videorag.shard import ray_serve

    t0 = time.perf_counter()
    made = write(corpus, "bench", folder, n, config.ann_min_rows, config.ann_compress_rows)
    written = time.perf_counter() - t0
    per_shard = _shard_cost(folder, n, queries[:100], method, config)
    ray_serve.connect("local")
    made = {**made, "shards": [{**s, "folder": str(folder / s["folder"])} for s in made["shards"]]}
    t0 = time.perf_counter()
    clients = ray_serve.deploy(made, replicas=1)
    deployed = time.perf_counter() - t0
    vectors = {text: vector for text, vector in queries}
    router = Router(clients, vectors.__getitem__, deadline)
    times, same, same_set, partial = [], 0, 0, 0
    for i, (text, _) in enumerate(queries[:20] + queries):
        start = time.perf_counter()
        hits = router.search(text, method, config, 10)
        if i < 20:
            continue
        times.append(time.perf_counter() - start)
        got = [h.video_id for h in hits]
        same += got == expected[i - 20]
        same_set += set(got) == set(expected[i - 20])
        partial += bool(hits.missing)
    found = {
        "write_s": round(written, 1),
        "deploy_s": round(deployed, 1),
        "latency": _latency(times),
        "same_top10": round(same / len(times), 4),
        "same_top10_set": round(same_set / len(times), 4),
        "partial": partial,
        "per_shard_in_process": per_shard,
    }
    if n > 1:
        found["killed_shard"] = _killed(router, queries[0][0], method, config)
    ray_serve.shutdown(n)
    found["two_empty_rounds"] = _transport(n, queries[0][1])
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

    from videorag.shard.ray_serve import ServeShard, actor_options

    asked = {"vector": vector, "text": "how do I fix a bike chain"}
    names = [f"videorag-empty-{k}" for k in range(n)]
    deployments = [serve.deployment(_Empty, name=name).options(ray_actor_options=actor_options(1 / n)) for name in names]
    handles = [ServeShard(name, serve.run(d.bind(), name=name, route_prefix=None)).handle
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
    """Each shard's two rounds in this process (no Ray): what one machine per shard would spend."""
    nodes = [ShardNode(str(folder / str(k))) for k in range(n)]
    times = []
    for i, (text, vector) in enumerate(queries):
        asked = ShardQuery(f"cost-{i}", text, vector, method.name, config, 10)
        slowest = 0.0
        parts = []
        for node in nodes:
            start = time.perf_counter()
            parts.append(node.statistics(asked))
            slowest = max(slowest, time.perf_counter() - start)
        asked.shared = method.merged(parts)
        second = 0.0
        for node in nodes:
            start = time.perf_counter()
            node.found(asked)
            second = max(second, time.perf_counter() - start)
        times.append(slowest + second)
    return _latency(times)


def _killed(router: Router, text: str, method, config) -> dict:
    """Kill shard 1's replica; the next search's time and what it says is missing."""
    import ray

    from videorag.shard.ray_serve import replicas

    for replica in replicas(1):
        ray.kill(replica, no_restart=True)
    start = time.perf_counter()
    hits = router.search(text, method, config, 10)
    return {"seconds": round(time.perf_counter() - start, 3), "missing": list(hits.missing), "hits": len(hits)}


def _latency(times: list[float]) -> dict:
    ms = np.asarray(times) * 1000
    return {"p50_ms": round(float(np.percentile(ms, 50)), 2), "p95_ms": round(float(np.percentile(ms, 95)), 2)}
