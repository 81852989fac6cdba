"""CARVE on a V-RAGBench-format set of our own, beside every method and CARVE's ablations, and
CARVE's latency at ≥ 1,000 chunks. The reranker is the config's (`auto`: the judge where its
model is installed, else e5); results/carve was measured with `--set search.carve.reranker.backend=e5`.

1. `quality`: the moment benchmark's recordings (`benchmarks/moments/`, rendered if missing),
   indexed with OCR captions (`--captions ocr`: the text-frame view) in WORK/carve/index; its DEV
   and TEST questions written as V-RAGBench triplets {query, video_id, start, end, answer} (the
   answer = what the narration says in the gold window) to WORK/carve/vragbench.jsonl; every
   method scored by `videorag eval index --triplets`'s code: chunk Recall@5 / nDCG@5 (120 s
   chunks), moment metrics, per-stage latency. No visual weights exist offline: the visual views
   are absent here (they are exercised in tests with random-weight models; no visual quality
   figure is claimed). Each run's carve settings go on top of the run's `--set` items.
2. `latency`: `carve` on the synthetic 1,000-video index with captions of `methods` (≥ 1,000
   chunks): pool / rerank / total p50 and p95 — e5's passage cache emptied before each query
   (cold) and kept across queries —, and end to end with generation by the local llama.cpp
   backend (Gemma 3 270M).

    python -m benchmarks carve [--skip quality,latency]      # writes OUT/carve.json
    python -m benchmarks carve --table                        # prints OUT/carve.json's quality table
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("OMP_NUM_THREADS", "1")

from videorag import VideoRAG  # noqa: E402
from videorag.eval.commands import evaluate_index  # noqa: E402
from videorag.eval.datasets import load_triplets  # noqa: E402
from videorag.rerank import e5  # noqa: E402

from .bench_methods import captioned_index as synthetic_captioned_index  # noqa: E402
from .bench_moments import golden  # noqa: E402
from .driver import read_results, run_parts  # noqa: E402
from .synthetic import percentiles  # noqa: E402

RUNS = (   # (row name, method, carve settings on top of the run's --set items)
    ("textvideorag", "textvideorag", ()),
    ("rag-adapter", "rag-adapter", ()),
    ("carve", "carve", ()),
    ("carve: text-clip only", "carve", ('search.carve.views=["text-clip"]',)),
    ("carve: text-frame only", "carve", ('search.carve.views=["text-frame"]',)),
    ("carve: no rerank", "carve", ("search.carve.rerank=false",)),
    ("carve: no per-chunk choice", "carve", ("search.carve.choose=false",)),
    ("carve: reranker alone (paper)", "carve", ("search.carve.rerank_weight=1.0",)),
)


def triplets(moments_dir: Path, videos: Path, out: Path) -> Path:
    """The moment benchmark's golden rows as V-RAGBench triplets (answer: the gold window's narration)."""
    rows = []
    for split in ("dev", "test"):
        for line in (moments_dir / f"{split}.jsonl").read_text().splitlines():
            item = json.loads(line)
            video_id, windows = next(iter(item["windows"].items()))   # one gold video each
            start, end = min(w[0] for w in windows), max(w[1] for w in windows)   # its span (2 have two)
            spans = json.loads((videos / f"{item['video']}.spans.json").read_text())["spans"]
            answer = " ".join(text for a, b, text in spans if a < end and b > start)
            rows.append({"id": item["id"], "query": item["query"], "video_id": video_id, "start": start, "end": end,
                         "answer": answer, "split": split, "kind": item["kind"]})
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return out


def captioned_index(run, videos: Path) -> Path:
    index = run.work / "carve" / "index"
    config = run.config("ingest.captioner=ocr")
    start = time.perf_counter()
    report = VideoRAG(index, config).add([videos])
    print(f"index: {report.summary()} in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return index


def bench_quality(run) -> dict:
    gold = golden(run)
    (run.work / "carve").mkdir(parents=True, exist_ok=True)
    vragbench = triplets(gold.work, gold.videos, run.work / "carve" / "vragbench.jsonl")
    items = load_triplets(vragbench)
    rag = VideoRAG(captioned_index(run, gold.videos), run.config())
    split = {json.loads(line)["id"]: json.loads(line)["split"] for line in vragbench.read_text().splitlines()}
    result = {"n": len(items), "chunks": len(rag.live.get().corpus.chunk_views),
              "views": rag.live.get().corpus.chunk_views.models, "runs": []}
    for name, method, settings in RUNS:
        rag.config.search.carve = run.config(*settings).search.carve
        e5.forget(rag.resources)   # each run's stage times from a cold passage cache
        for part in ("dev", "test"):
            chosen = [it for it in items if split[it.qid] == part]
            scores = evaluate_index(rag, chosen, method)
            result["runs"].append({"run": name, "split": part, **{k: v for k, v in scores.items() if k != "per_item"}})
            print(name, part, {k: scores[k] for k in ("chunk_recall@5", "chunk_ndcg@5", "window_hit@1",
                                                       "moment_recall@5", "stages_ms")}, flush=True)
    return result


def bench_latency(run, queries: int = 40) -> dict:
    rag = VideoRAG(synthetic_captioned_index(run), run.config())
    start = time.perf_counter()
    rag.search("warm up", method="carve")
    views = rag.live.get().corpus.chunk_views
    result = {"chunks": len(views), "view_items": {k: len(v.chunk) for k, v in views.views.items()},
              "first_query_seconds (builds the views)": round(time.perf_counter() - start, 1)}
    for cache in ("cold", "kept"):   # e5's passage cache emptied before each query, or kept across them
        stages: list[dict] = []
        for i in range(queries):
            if cache == "cold":
                e5.forget(rag.resources)
            t = {}
            begin = time.perf_counter()
            rag.search(f"how do I fix the {['chain', 'valve', 'hinge', 'filter'][i % 4]} on a bike {i}", top_k=10,
                       method="carve", moments=True, timings=t)
            t["total"] = time.perf_counter() - begin
            stages.append(t)
        result[f"search_ms (e5 cache {cache})"] = {
            k: percentiles([s[k] * 1000 for s in stages], digits=1, suffix="") for k in stages[0]}
    rag.config = run.config("generate.backend=llamacpp", "generate.max_tokens=64")
    rag.ask("warm up", method="carve")
    ends = []
    for i in range(5):
        begin = time.perf_counter()
        rag.ask(f"how do I fix the {['chain', 'valve', 'hinge', 'filter', 'seat'][i]} on a bike", method="carve")
        ends.append(time.perf_counter() - begin)
    result["ask_with_llamacpp_s"] = {"p50": round(float(np.percentile(ends, 50)), 2),
                                     "max": round(max(ends), 2), "queries": len(ends), "max_tokens": 64}
    return result


COLUMNS = ("chunk_recall@5", "chunk_ndcg@5", "window_hit@1", "video_hit@1", "moment_recall@5")


def table(results: dict) -> str:
    """The quality runs as a Markdown table (one row per run and split), with stage p50 / p95."""
    head = ("| run | split | n | " + " | ".join(COLUMNS) + " | total p50 / p95 ms |\n|"
            + "---|" * (len(COLUMNS) + 4))
    rows = []
    for r in results["quality"]["runs"]:
        total = r["stages_ms"].get("total", {})
        rows.append(f"| {r['run']} | {r['split']} | {r['n']} | " + " | ".join(f"{r[c]:.3f}" for c in COLUMNS)
                    + f" | {total.get('p50', 0):.0f} / {total.get('p95', 0):.0f} |")
    return "\n".join([head] + rows)


PARTS = {"quality": bench_quality, "latency": bench_latency}


def options(parser) -> None:
    parser.add_argument("--table", action="store_true", help="print the quality table of OUT/carve.json, run nothing")


def main(run) -> dict | None:
    if run.args.table:
        print(table(read_results(run.path)))
        return None
    return run_parts(run, PARTS)
