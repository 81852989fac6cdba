"""A text embedder's speed and memory, whichever the config names (`--set embed.backend=…
embed.model=…`): passages embedded per second (40-word segments, `embed.batch_size` at a time, as
ingest sends them), one query's latency p50 / p95 (the query path's `embed_queries`), and the
process's RSS before the model, loaded, and at its peak. No data set needed.

    python -m benchmarks embedder_speed                                        # the default, MiniLM
    python -m benchmarks embedder_speed --set embed.backend=llamacpp           # nomic-embed-text-v1.5
The load average is written beside the figures: on a shared machine they move with it.
"""
from __future__ import annotations

import os
import resource
import time

import numpy as np

from videorag.embed import create_embedder, embed_queries

WORDS = ("pour the hot water slowly over the coffee grounds remove the wheel and pull the inner tube out find "
         "the puncture by listening for air press the patch firmly preheat the oven then stir the flour and "
         "sugar until smooth").split()


def options(parser) -> None:
    parser.add_argument("--texts", type=int, default=128, help="40-word passages to embed (default 128)")
    parser.add_argument("--queries", type=int, default=50, help="single queries to time (default 50)")


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        return round(int(status.read().split("VmRSS:")[1].split()[0]) / 1024, 1)


def main(run) -> dict:
    config = run.config()
    rng = np.random.default_rng(0)
    passages = [" ".join(rng.choice(WORDS, 40)) for _ in range(run.args.texts)]
    before, load_start = rss_mb(), time.perf_counter()
    embedder = create_embedder(config.embed)
    embedder.embed(["warm up"])
    loaded, load_seconds = rss_mb(), time.perf_counter() - load_start
    start = time.perf_counter()
    embedder.embed(passages)
    rate = len(passages) / (time.perf_counter() - start)
    latencies = []
    for i in range(run.args.queries):
        start = time.perf_counter()
        embed_queries(embedder, [f"how do I fix puncture number {i} on my bike"])
        latencies.append(1000 * (time.perf_counter() - start))
    return {"backend": config.embed.backend, "model": embedder.model_name, "dim": embedder.dim,
            "batch_size": config.embed.batch_size, "load_seconds": round(load_seconds, 2),
            "texts_per_second": round(rate, 2),
            "query_ms": {"p50": round(float(np.percentile(latencies, 50)), 1),
                         "p95": round(float(np.percentile(latencies, 95)), 1)},
            "rss_mb": {"before": before, "loaded": loaded,
                       "peak": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)},
            "cpus": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()]}
