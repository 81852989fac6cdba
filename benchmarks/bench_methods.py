"""Search latency of every text method, plain and `--moments`, and of `rag-adapter` with captions,
at 1,000 videos / 50,000 segments (the synthetic index of `core`, built if missing).

1. `text`: warm p50 / p95 per method (`textvideorag`, `best`, `hybrid`, `bm25`), one hit per
   video and `--moments`, top 10;
2. `rag-adapter`: at 1,000 videos with 60 captioned frames each (60,000 captions; generated
   text, real MiniLM query embeddings, random caption vectors — latency does not depend on their
   values).

    python -m benchmarks methods [--skip text,rag-adapter]      # writes OUT/methods.json
"""
from __future__ import annotations

import random
import time
from pathlib import Path

import numpy as np

from videorag import VideoRAG

from .bench_core import search_index
from .synthetic import TOPICS, percentiles, question, sentence, times_ms, unit

TEXT_METHODS = ("textvideorag", "best", "hybrid", "bm25")
FRAMES_PER_VIDEO = 60


def _latency(rag: VideoRAG, method: str, moments: bool, queries: int) -> dict:
    rng = random.Random(3)
    rag.search("warm up", method=method, moments=moments)
    texts = [question(rng) for _ in range(queries)]
    return percentiles(times_ms(lambda q: rag.search(q, top_k=10, method=method, moments=moments), texts))


def bench_text(run, queries: int = 100) -> dict:
    rag = VideoRAG(search_index(run), run.config())
    result = {"videos": rag.library.info()["videos"], "units": rag.library.info()["units"], "queries": queries}
    for method in TEXT_METHODS:
        for moments in (False, True):
            result[f"{method}{' --moments' if moments else ''}"] = _latency(rag, method, moments, queries)
    return result


def captioned_index(run) -> Path:
    """A copy of the search index's texts with 60 captioned frames per video (built once)."""
    from videorag.index import VideoIndex, VideoRecord
    from videorag.types import Caption

    index_dir = run.work / "search-index-captions"
    if (index_dir / "videorag.json").exists():
        return index_dir
    source = VideoRAG(search_index(run), run.config())
    rng, nrng = random.Random(4), np.random.default_rng(4)
    target = VideoIndex.open_or_create(index_dir, source.embedder.model_name, source.embedder.dim)
    target.enable_captions("ocr", "synthetic")
    for row in source.index.videos(["video_id", "path", "duration"]).to_pylist():
        segs = source.index.segments(row["video_id"])
        chunks = source.index.segments(row["video_id"], "chunk")
        topic = TOPICS[int(row["video_id"][3:]) % len(TOPICS)]
        captions = [Caption(float(t), f"on screen: {sentence(rng, topic)} | said: {segs[t % len(segs)].text}")
                    for t in range(FRAMES_PER_VIDEO)]
        vec = lambda k: unit(nrng.normal(size=(k, source.embedder.dim)).astype(np.float32))  # noqa: E731
        target.add(VideoRecord(row["video_id"], row["path"], 0, 0, row["duration"], "asr", segs, vec(len(segs)),
                               chunks, vec(len(chunks)), captions=captions, caption_vectors=vec(len(captions))))
    target.compact()
    return index_dir


def bench_rag_adapter(run, queries: int = 50) -> dict:
    rag = VideoRAG(captioned_index(run), run.config())
    start = time.perf_counter()
    rag.search("warm up", method="rag-adapter")
    load = time.perf_counter() - start
    stats = rag.library.info()
    result = {"videos": stats["videos"], "captions": stats.get("captions"), "queries": queries,
              "first_query_seconds (loads captions)": round(load, 2)}
    for moments in (False, True):
        result["rag-adapter" + (" --moments" if moments else "")] = _latency(rag, "rag-adapter", moments, queries)
    return result


PARTS = {"text": bench_text, "rag-adapter": bench_rag_adapter}
