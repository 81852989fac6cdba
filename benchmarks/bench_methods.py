"""Search latency of every text method, plain and `--moments`, and of `rag-adapter` with captions,
at 1,000 videos / 50,000 segments (the synthetic index of `bench_core.py`, built if missing).

1. warm p50 / p95 per method (`textvideorag`, `best`, `hybrid`, `bm25`), one hit per video and
   `--moments`, top 10;
2. `rag-adapter` at 1,000 videos with 60 captioned frames each (60,000 captions; generated text,
   real MiniLM query embeddings, random caption vectors — latency does not depend on their values).

Usage: python benchmarks/bench_methods.py [--out bench-results] [--skip text,rag-adapter]
Prints figures and writes OUT/methods.json.
"""
from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_core import THINGS, TOPICS, VERBS, bench_search, run, sentence  # noqa: E402

from videorag import Config, VideoRAG  # noqa: E402

TEXT_METHODS = ("textvideorag", "best", "hybrid", "bm25")
FRAMES_PER_VIDEO = 60


def _latency(rag: VideoRAG, method: str, moments: bool, queries: int) -> dict:
    rng = random.Random(3)
    rag.search("warm up", method=method, moments=moments)
    times = []
    for _ in range(queries):
        query = f"how do I {rng.choice(VERBS)} {rng.choice(THINGS)} on a {rng.choice(TOPICS)}"
        t0 = time.perf_counter()
        rag.search(query, top_k=10, method=method, moments=moments)
        times.append((time.perf_counter() - t0) * 1000)
    return {"p50_ms": round(float(np.percentile(times, 50)), 2), "p95_ms": round(float(np.percentile(times, 95)), 2)}


def bench_text(out: Path, queries: int = 100) -> dict:
    bench_search(out, queries=1)  # builds the 1,000-video index if missing
    rag = VideoRAG(out / "search-index", Config())
    result = {"videos": rag.info()["videos"], "units": rag.info()["units"], "queries": queries}
    for method in TEXT_METHODS:
        for moments in (False, True):
            result[f"{method}{' --moments' if moments else ''}"] = _latency(rag, method, moments, queries)
    return result


def _captioned_index(out: Path) -> Path:
    """A copy of the search index's texts with 60 captioned frames per video."""
    from videorag.index import VideoIndex, VideoRecord
    from videorag.types import Caption

    index_dir = out / "search-index-captions"
    if (index_dir / "videorag.json").exists():
        return index_dir
    source = VideoRAG(out / "search-index", Config())
    rng, nrng = random.Random(4), np.random.default_rng(4)
    target = VideoIndex.open_or_create(index_dir, source.embedder.model_name, source.embedder.dim)
    target.enable_captions("ocr", "synthetic")
    for row in source.index.videos(["video_id", "path", "duration"]).to_pylist():
        segs = source.index.segments(row["video_id"])
        chunks = source.index.segments(row["video_id"], "chunk")
        topic = TOPICS[int(row["video_id"][3:]) % len(TOPICS)]
        captions = [Caption(float(t), f"on screen: {sentence(rng, topic)} | said: {segs[t % len(segs)].text}")
                    for t in range(FRAMES_PER_VIDEO)]
        vec = lambda k: _unit(nrng.normal(size=(k, source.embedder.dim)).astype(np.float32))  # noqa: E731
        target.add(VideoRecord(row["video_id"], row["path"], 0, 0, row["duration"], "asr", segs, vec(len(segs)),
                               chunks, vec(len(chunks)), captions=captions, caption_vectors=vec(len(captions))))
    target.compact()
    return index_dir


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def bench_rag_adapter(out: Path, queries: int = 50) -> dict:
    bench_search(out, queries=1)
    rag = VideoRAG(_captioned_index(out), Config())
    start = time.perf_counter()
    rag.search("warm up", method="rag-adapter")
    load = time.perf_counter() - start
    stats = rag.info()
    result = {"videos": stats["videos"], "captions": stats.get("captions"), "queries": queries,
              "first_query_seconds (loads captions)": round(load, 2)}
    for moments in (False, True):
        result["rag-adapter" + (" --moments" if moments else "")] = _latency(rag, "rag-adapter", moments, queries)
    return result


if __name__ == "__main__":
    sys.exit(run(__doc__, (("text", bench_text), ("rag-adapter", bench_rag_adapter)), "methods.json"))
