"""Core benchmarks (issue: index a folder of videos and answer questions about it).

1. ingest × realtime on ≥ 10 min of narrated video (30 fps, 640×360, x264 default GOP), embedded
   default (frames + ASR + embeddings + index);
2. warm `search` latency p50 / p95 on 1,000 videos / ≥ 50,000 segments (generated text,
   clustered vectors), with the per-call check for other processes' commits (fresh reads);
3. `ask` end-to-end latency with each local generator.

Usage: python benchmarks/bench_core.py [--out bench-results] [--skip ingest,search,ask]
Prints figures and writes OUT/core.json.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

from videorag import Config, GenerateConfig, VideoRAG
from videorag.demo.render import HowTo, render

TOPICS = ["bread", "bicycle", "garden", "guitar", "kitchen sink", "laptop", "car battery", "tile floor",
          "sourdough", "watercolor", "fence", "aquarium", "knife", "sweater", "drywall", "espresso"]
VERBS = ["clean", "check", "tighten", "measure", "cut", "mix", "sand", "rinse", "attach", "remove",
         "heat", "fold", "press", "replace", "adjust", "paint", "drain", "trim", "glue", "test"]
THINGS = ["the handle", "two screws", "the seal", "a thin layer", "the edges", "the filter", "the valve",
          "the dough", "the cable", "the hinge", "the strings", "the grout", "the blade", "the lid"]
EXTRAS = ["until it feels firm", "for about ten minutes", "with a soft cloth", "at low speed",
          "so nothing leaks later", "before moving on", "very carefully", "using both hands"]


def sentence(rng: random.Random, topic: str) -> str:
    return (f"Now {rng.choice(VERBS)} {rng.choice(THINGS)} of the {topic} "
            f"{rng.choice(EXTRAS)}, then {rng.choice(VERBS)} {rng.choice(THINGS)}.")


def ingest_videos(out: Path, minutes: float = 10.0) -> tuple[Path, dict[str, str], float]:
    """≥ `minutes` of narrated how-tos under OUT/ingest-videos (rendered once):
    (folder, {file name: the narrated script}, seconds)."""
    from videorag.ingest.decode import probe

    rng = random.Random(0)
    folder = out / "ingest-videos"
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


def bench_ingest(out: Path, minutes: float = 10.0) -> dict:
    folder, scripts, total = ingest_videos(out, minutes)
    n = len(scripts)
    index_dir = out / "ingest-index"
    import shutil

    shutil.rmtree(index_dir, ignore_errors=True)
    rag = VideoRAG(index_dir, Config())
    rag.embedder.embed(["warm up"])
    rag.asr.warm_up()
    rag.add([])  # imports and creates the index: one-time start-up, not throughput
    start = time.perf_counter()
    report = rag.add([folder])
    seconds = time.perf_counter() - start
    stages = _stage_speeds(sorted(folder.glob("*.mp4"))[:3], rag)
    return {"videos": n, "video_seconds": round(total, 1), "ingest_seconds": round(seconds, 2),
            "x_realtime": round(total / seconds, 1), "report": report.summary(), "stages_x_realtime": stages}


def _stage_speeds(paths: list[Path], rag: VideoRAG) -> dict:
    """Each stage alone on a few of the same videos, in the same run: where the time goes."""
    from videorag.ingest.decode import probe, sample_frames

    seconds = sum(probe(p).duration for p in paths)
    speeds = {}
    for name, fn in (("asr", lambda p: rag.asr.transcribe(str(p))), ("frames_1fps", sample_frames)):
        start = time.perf_counter()
        for path in paths:
            fn(path)
        speeds[name] = round(seconds / (time.perf_counter() - start), 1)
    return speeds


def bench_search(out: Path, videos: int = 1000, segments_per_video: int = 50, queries: int = 200) -> dict:
    from videorag.index import VideoIndex, VideoRecord
    from videorag.ingest.chunking import window_chunks
    from videorag.types import Segment

    rng = random.Random(1)
    nrng = np.random.default_rng(1)
    index_dir = out / "search-index"
    rag = VideoRAG(index_dir, Config())
    dim = rag.query_embedder.dim   # a search process loads no torch (which would slow it ~2×)
    if not (index_dir / "videorag.json").exists():
        index = VideoIndex.open_or_create(index_dir, rag.query_embedder.model_name, dim)
        centres = nrng.normal(size=(len(TOPICS) * 4, dim)).astype(np.float32)
        for v in range(videos):
            topic = TOPICS[v % len(TOPICS)]
            segs = [Segment(6.0 * i, 6.0 * i + 5.5, sentence(rng, topic)) for i in range(segments_per_video)]
            chunks = window_chunks(segs, 120.0, segs[-1].end)
            centre = centres[v % len(centres)]
            vec = lambda k: _unit(centre + 0.8 * nrng.normal(size=(k, dim)).astype(np.float32))  # noqa: E731
            index.add(VideoRecord(f"vid{v:05d}", f"/corpus/vid{v:05d}.mp4", 0, 0, segs[-1].end, "asr",
                                  segs, vec(len(segs)), chunks, vec(len(chunks))))
        index.compact()
    start = time.perf_counter()
    rag.search("warm up")
    load = time.perf_counter() - start
    times = []
    for q in range(queries):
        query = f"how do I {rng.choice(VERBS)} {rng.choice(THINGS)} on a {rng.choice(TOPICS)}"
        t0 = time.perf_counter()
        rag.search(query, top_k=10)
        times.append((time.perf_counter() - t0) * 1000)
    stats = rag.info()
    return {"videos": stats["videos"], "units": stats["units"], "queries": queries,
            "cold_load_seconds": round(load, 2), "p50_ms": round(float(np.percentile(times, 50)), 2),
            "p95_ms": round(float(np.percentile(times, 95)), 2),
            "fresh_read_check_ms": _refresh_ms(rag)}


def _refresh_ms(rag: VideoRAG, rounds: int = 200) -> float:
    """Median cost of the per-call check for other processes' commits (part of every search)."""
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        rag.index.refresh()
        times.append((time.perf_counter() - t0) * 1000)
    return round(float(np.median(times)), 3)


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def bench_ask(out: Path) -> dict:
    from videorag.demo import make_corpus
    from videorag.demo.corpus import QUESTIONS

    folder = out / "demo"
    make_corpus(folder / "videos", show=False)
    results = {}
    for backend in ("extractive", "llamacpp"):
        rag = VideoRAG(folder / "index", Config(generate=GenerateConfig(backend=backend, max_tokens=64)))
        rag.add([folder / "videos"])
        rag.ask("warm up question?")
        times = []
        for question in QUESTIONS:
            t0 = time.perf_counter()
            rag.ask(question)
            times.append(time.perf_counter() - t0)
        results[backend] = {"mean_s": round(float(np.mean(times)), 3), "max_s": round(max(times), 3)}
    return results


def run(doc: str, benches: tuple, filename: str) -> int:
    """The shared command line of the benchmark scripts: --out, --skip; prints and writes JSON."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="bench-results")
    parser.add_argument("--skip", default="", help="comma-separated names of benchmarks to skip")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    skip = set(filter(None, args.skip.split(",")))
    path = out / filename
    results = json.loads(path.read_text()) if path.is_file() else {}  # skipped ones keep their figures
    for name, fn in benches:
        if name not in skip:
            results[name] = fn(out)
            print(name, json.dumps(results[name]), flush=True)
    path.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(run(__doc__, (("ingest", bench_ingest), ("search", bench_search), ("ask", bench_ask)), "core.json"))
