"""The int8 ONNX MiniLM (`--embed-backend onnx`) against the torch model it was exported from:

1. vector agreement on the bench's 534 WikiHowQA queries (cosine per query);
2. retrieval: R@1/5/10 of `hybrid` and `best` with queries embedded by each runtime, against the
   same transcript embeddings (made by torch): can an index made by one be queried by the other?
3. speed: ms per single-query embedding (one thread each), and a cold `videorag search` process
   (wall seconds, median of 3) on a small index with each backend.

    OMP_NUM_THREADS=1 python -m benchmarks onnx_embedder      # writes OUT/onnx_embedder.json
The cold searches run on WORK/moments/index when the moment benchmark has built it.
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

from videorag.config import EmbedConfig, SearchConfig
from videorag.embed import create_embedder
from videorag.eval.cli import CACHE, bench_dir
from videorag.eval.datasets import load_transcripts, load_wikihow_qa
from videorag.eval.runner import evaluate_retrieval
from videorag.eval.transcripts import transcript_corpus
from videorag.methods import create_method
from videorag.retrieve import Query, Searcher

KEYS = ("recall_first@1", "recall_first@5", "recall_first@10")


def recall(corpus, embedder, items, method: str) -> list[float]:
    config = SearchConfig()
    searcher, chosen = Searcher(corpus, embedder), create_method(method, config)
    r = evaluate_retrieval(items, lambda it: searcher.rank_ids(Query(it.query, it.question), chosen, config), method)
    return [round(r[k], 3) for k in KEYS]


def per_query_ms(embedder, queries: list[str]) -> float:
    embedder.embed(queries[:2])
    t0 = time.perf_counter()
    for q in queries[:200]:
        embedder.embed([q])
    return round((time.perf_counter() - t0) / min(200, len(queries)) * 1000, 2)


def cold_search(index: Path, backend: str) -> float:
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "videorag.cli", "search", "how do I patch a tube", "--index",
                        str(index), "--embed-backend", backend], capture_output=True, check=True)
        times.append(time.perf_counter() - t0)
    return round(statistics.median(times), 2)


def main(run) -> dict:
    items = load_wikihow_qa(bench_dir() / "wikihow_qa.json")
    torch_model, onnx_model = create_embedder(EmbedConfig()), create_embedder(EmbedConfig(backend="onnx"))
    queries = [it.query for it in items]
    cosine = (torch_model.embed(queries) * onnx_model.embed(queries)).sum(axis=1)
    corpus = transcript_corpus(load_transcripts(bench_dir() / "transcripts.jsonl.gz"), torch_model, cache_dir=CACHE)
    results = {"cosine": {"min": round(float(cosine.min()), 5), "mean": round(float(cosine.mean()), 5)},
               "recall_first_1_5_10": {f"{m} / {name} queries": recall(corpus, model, items, m)
                                       for m in ("hybrid", "best")
                                       for name, model in (("torch", torch_model), ("onnx", onnx_model))},
               "ms_per_query": {"torch": per_query_ms(torch_model, queries), "onnx": per_query_ms(onnx_model, queries)}}
    index = run.work / "moments" / "index"
    if (index / "videorag.json").is_file():
        results["cold_search_seconds"] = {b: cold_search(index, b) for b in ("sentence-transformers", "onnx")}
    return results
