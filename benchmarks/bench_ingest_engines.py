"""Ingest × realtime on ≥ 10 min of narrated video: the local engine (5 runs: min / median / max)
beside the Ray engine on the same videos on this machine (its overhead), and whether the two
write the same transcripts and vectors.

Local runs: models loaded and the index created before the clock starts (throughput). Ray runs:
Ray started before the clock (`ray_start_seconds` reported apart); each run's clock includes
its actors loading the models (the price of a run on Ray).

Usage: python benchmarks/bench_ingest_engines.py [--out bench-results] [--skip local,ray]
Prints figures and writes OUT/ingest_engines.json.
"""
from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_core import ingest_videos, run  # noqa: E402

from videorag import Config, VideoRAG  # noqa: E402
from videorag.config import IngestConfig  # noqa: E402

RUNS = {"local": 5, "ray": 3}


def _runs(out: Path, engine: str) -> dict:
    folder, n, total = ingest_videos(out)
    config = Config(ingest=IngestConfig(engine=engine), show_progress=False)
    result, speeds = {"videos": n, "video_seconds": round(total, 1)}, []
    if engine == "ray":
        import ray

        start = time.perf_counter()
        ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False)
        result["ray_start_seconds"] = round(time.perf_counter() - start, 1)
    for i in range(RUNS[engine]):
        index_dir = out / f"ingest-engine-{engine}"
        shutil.rmtree(index_dir, ignore_errors=True)
        rag = VideoRAG(index_dir, config)
        if engine == "local":
            rag.embedder.embed(["warm up"])
            rag.asr.warm_up()
        rag.add([])   # creates the index: start-up, not throughput
        start = time.perf_counter()
        report = rag.add([folder])
        speeds.append(total / (time.perf_counter() - start))
        assert report.count("added") == n, report.summary()
        print(engine, i, f"{speeds[-1]:.1f} x realtime", flush=True)
    result["x_realtime"] = {"min": round(min(speeds), 1), "median": round(float(np.median(speeds)), 1),
                            "max": round(max(speeds), 1), "runs": len(speeds)}
    return result


def bench_local(out: Path) -> dict:
    return _runs(out, "local")


def bench_ray(out: Path) -> dict:
    result = _runs(out, "ray")
    result["same_as_local"] = _same(out / "ingest-engine-local", out / "ingest-engine-ray")
    return result


def _same(a: Path, b: Path) -> dict:
    """Whether two indexes of the same videos hold the same transcripts and vectors."""
    tables = []
    for index in (a, b):
        units = VideoRAG(index).index._tables["units"].to_arrow().to_pylist()
        tables.append(sorted(units, key=lambda r: (r["video_id"], r["kind"], r["start"])))
    texts = [[(r["video_id"], r["kind"], r["start"], r["text"]) for r in t] for t in tables]
    gap = max((float(np.abs(np.subtract(x["vector"], y["vector"])).max()) for x, y in zip(*tables)), default=0.0)
    return {"units": len(tables[0]), "same_units_and_texts": texts[0] == texts[1], "max_vector_difference": gap}


if __name__ == "__main__":
    sys.exit(run(__doc__, (("local", bench_local), ("ray", bench_ray)), "ingest_engines.json"))
