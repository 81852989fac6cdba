"""Core benchmarks (issue: index a folder of videos and answer questions about it).

1. `ingest`: ingest × realtime on ≥ 10 min of narrated video (30 fps, 640×360, x264 default GOP),
   embedded default (frames + ASR + embeddings + index);
2. `search`: warm `search` latency p50 / p95 on 1,000 videos / ≥ 50,000 segments (generated text,
   clustered vectors), with the per-call check for other processes' commits (fresh reads);
3. `ask`: `ask` end-to-end latency with each local generator.

    python -m benchmarks core [--skip ingest,search,ask]      # writes OUT/core.json
"""
from __future__ import annotations

import random
import shutil
import time
from pathlib import Path

import numpy as np

from videorag import VideoRAG
from videorag.demo.render import HowTo, render

from .synthetic import TOPICS, percentiles, question, sentence, times_ms, unit


def ingest_videos(work: Path, minutes: float = 10.0) -> tuple[Path, dict[str, str], float]:
    """≥ `minutes` of narrated how-tos under WORK/ingest-videos (rendered once):
    (folder, {file name: the narrated script}, seconds)."""
    from videorag.ingest.decode import probe

    rng = random.Random(0)
    folder = work / "ingest-videos"
    folder.mkdir(parents=True, exist_ok=True)
    total, scripts = 0.0, {}
    while total < minutes * 60:
        n = len(scripts)
        topic = TOPICS[n % len(TOPICS)]
        path = folder / f"howto-{n:02d}.mp4"
        howto = HowTo(f"h{n}", f"How to fix a {topic}", tuple(sentence(rng, topic) for _ in range(14)))
        if not path.exists():
            render(howto, path, fps=30, size=(640, 360), gop=250)
        total += probe(path).duration
        scripts[path.name] = " ".join(howto.steps)
    return folder, scripts, total


def warm_rag(index_dir: Path, config) -> VideoRAG:
    """A fresh index with its models loaded and its tables created: what follows is throughput."""
    shutil.rmtree(index_dir, ignore_errors=True)
    rag = VideoRAG(index_dir, config)
    rag.library.embedder.embed(["warm up"])
    rag.library.asr.warm_up()
    return rag


def timed_add(rag: VideoRAG, folder: Path):
    """(the ingest report, seconds) of adding `folder`, after the one-time start-up."""
    rag.add([])  # imports and creates the index: one-time start-up, not throughput
    start = time.perf_counter()
    report = rag.add([folder])
    return report, time.perf_counter() - start


def bench_ingest(run) -> dict:
    folder, scripts, total = ingest_videos(run.work)
    rag = warm_rag(run.work / "ingest-index", run.config())
    report, seconds = timed_add(rag, folder)
    stages = _stage_speeds(sorted(folder.glob("*.mp4"))[:3], rag)
    return {"videos": len(scripts), "video_seconds": round(total, 1), "ingest_seconds": round(seconds, 2),
            "x_realtime": round(total / seconds, 1), "report": report.summary(), "stages_x_realtime": stages}


def _stage_speeds(paths: list[Path], rag: VideoRAG) -> dict:
    """Each stage alone on a few of the same videos, in the same run: where the time goes."""
    from videorag.ingest.decode import probe, sample_frames

    seconds = sum(probe(p).duration for p in paths)
    speeds = {}
    for name, fn in (("asr", lambda p: rag.library.asr.transcribe(str(p))), ("frames_1fps", sample_frames)):
        speeds[name] = round(seconds / (sum(times_ms(fn, paths)) / 1000), 1)
    return speeds


def search_index(run, videos: int = 1000, segments_per_video: int = 50) -> Path:
    """WORK/search-index: `videos` videos of generated text and clustered vectors (built once)."""
    from videorag.index import VideoIndex, VideoRecord
    from videorag.ingest.chunking import window_chunks
    from videorag.embed import create_embedder, query_backend
    from videorag.types import Segment

    index_dir = run.work / "search-index"
    if (index_dir / "videorag.json").exists():
        return index_dir
    rng, nrng = random.Random(1), np.random.default_rng(1)
    config = run.config()
    embedder = create_embedder(config.embed, query_backend(config.embed))   # the model queries are embedded with
    index = VideoIndex.open_or_create(index_dir, embedder.model_name, embedder.dim)
    centres = nrng.normal(size=(len(TOPICS) * 4, embedder.dim)).astype(np.float32)
    for v in range(videos):
        topic = TOPICS[v % len(TOPICS)]
        segs = [Segment(6.0 * i, 6.0 * i + 5.5, sentence(rng, topic)) for i in range(segments_per_video)]
        chunks = window_chunks(segs, 120.0, segs[-1].end)
        centre = centres[v % len(centres)]
        vec = lambda k: unit(centre + 0.8 * nrng.normal(size=(k, embedder.dim)).astype(np.float32))  # noqa: E731
        index.add(VideoRecord(f"vid{v:05d}", f"/corpus/vid{v:05d}.mp4", 0, 0, segs[-1].end, "asr",
                              segs, vec(len(segs)), chunks, vec(len(chunks))))
    index.compact()
    return index_dir


def bench_search(run, queries: int = 200) -> dict:
    rag = VideoRAG(search_index(run), run.config())   # a search process loads no torch (which would slow it ~2×)
    start = time.perf_counter()
    rag.search("warm up")
    load = time.perf_counter() - start
    rng = random.Random(1)
    times = times_ms(lambda q: rag.search(q, top_k=10), [question(rng) for _ in range(queries)])
    stats = rag.library.info()
    return {"videos": stats["videos"], "units": stats["units"], "queries": queries,
            "cold_load_seconds": round(load, 2), **percentiles(times), "fresh_read_check_ms": _refresh_ms(rag)}


def _refresh_ms(rag: VideoRAG, rounds: int = 200) -> float:
    """Median cost of the per-call check for other processes' commits (part of every search)."""
    return round(float(np.median(times_ms(lambda _: rag.library.index.refresh(), range(rounds)))), 3)


def bench_ask(run) -> dict:
    from videorag.demo import make_corpus
    from videorag.demo.corpus import QUESTIONS

    folder = run.work / "demo"
    make_corpus(folder / "videos", show=False)
    results = {}
    for backend in ("extractive", "llamacpp"):
        rag = VideoRAG(folder / "index", run.config(f"generate.backend={backend}", "generate.max_tokens=64"))
        rag.add([folder / "videos"])
        rag.ask("warm up question?")
        times = [t / 1000 for t in times_ms(rag.ask, QUESTIONS)]
        results[backend] = {"mean_s": round(float(np.mean(times)), 3), "max_s": round(max(times), 3)}
    return results


PARTS = {"ingest": bench_ingest, "search": bench_search, "ask": bench_ask}
