"""What the first question to a freshly opened index pays, per method: a copy of the moment
benchmark's index (its `ingest.*` settings chosen with `--set`, e.g. `ingest.captioner=ocr` for
captions and CARVE's text-frame view) gets its search snapshot saved by this process (timed), then
a fresh process times each method's first and second query and reports whether it loaded LanceDB
or pyarrow (a search reads the snapshot alone). CARVE runs without its reranker, so its figure is
the pool over its views.

    python -m benchmarks first_query --set ingest.captioner=ocr [--methods carve,rag-adapter,best]
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time

from videorag import VideoRAG

from .bench_moments import golden, moment_rag

QUERIES = ("how do I open a file", "what is a list comprehension")
PROBE = """
import json, sys, time
from videorag import VideoRAG
from videorag.config import apply_overrides, Config
rag = VideoRAG(sys.argv[1], apply_overrides(Config(), json.loads(sys.argv[3])))
rag.search("warm up the query embedder", method="textvideorag", judge=False)
out = {}
for method in sys.argv[2].split(","):
    times = []
    for query in %r:
        start = time.perf_counter()
        rag.search(query, method=method, judge=False)
        times.append(round((time.perf_counter() - start) * 1000, 1))
    out[method] = {"first_ms": times[0], "second_ms": times[1]}
out["loaded"] = sorted(m for m in ("lancedb", "pyarrow") if m in sys.modules)
print(json.dumps(out))
""" % (QUERIES,)


def options(parser) -> None:
    parser.add_argument("--methods", default="carve,rag-adapter,best,textvideorag",
                        help="comma-separated methods, timed in this order")


def main(run) -> dict:
    rag, _ = moment_rag(run, golden(run))
    copy = run.work / "first-query" / "index"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(rag.location.local, copy, ignore=shutil.ignore_patterns("search"))
    settings = [*run.settings, "search.carve.rerank=false"]
    start = time.perf_counter()
    VideoRAG(copy, run.config("search.carve.rerank=false")).library.save_snapshot()
    saved = round(time.perf_counter() - start, 2)
    probe = subprocess.run([sys.executable, "-c", PROBE, str(copy), run.args.methods, json.dumps(settings)],
                           capture_output=True, text=True, check=True)
    figures = {"save_snapshot_s": saved, **json.loads(probe.stdout.strip().splitlines()[-1])}
    print(json.dumps(figures, indent=1))
    return figures
