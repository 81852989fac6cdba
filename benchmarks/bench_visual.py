"""Visual-path benchmarks (issue: frame embeddings, VideoRAG-V / VT, adaptive frame selection).

1. frame-embedding throughput (frames/s) for CLIP ViT-B/32 built without weights (`random-base`:
   the smallest real CLIP architecture; speed does not depend on the weights' values);
2. k-means++ (k=8 and k=64) plus learned-subset selection time per video;
3. ingest × realtime with the visual path on, beside text-only, on the same videos in one run;
4. `videorag-vt` search latency at 1,000 videos.

Usage: python benchmarks/bench_visual.py [--out bench-results] [--skip frames,select,ingest,search]
Prints figures and writes OUT/visual.json.
"""
from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_core import bench_ingest, run  # noqa: E402

from videorag import Config, IngestConfig, SearchConfig, VideoRAG  # noqa: E402

MODEL = "random-base"


def bench_frames(out: Path, n: int = 96) -> dict:
    from videorag.visual import create_visual

    model = create_visual("clip", MODEL, batch_size=32)
    images = [np.random.default_rng(i).integers(0, 255, (360, 640, 3), dtype=np.uint8) for i in range(n)]
    model.embed_images(images[:8])
    start = time.perf_counter()
    model.embed_images(images)
    seconds = time.perf_counter() - start
    return {"model": f"clip:{MODEL} (ViT-B/32)", "frames": n, "frames_per_s": round(n / seconds, 1)}


def bench_select(out: Path, videos: int = 20) -> dict:
    from videorag.visual import scorer
    from videorag.visual.represent import generation_frames, retrieval_frames

    rng = np.random.default_rng(0)
    feats = [rng.normal(size=(600, 512)).astype(np.float32) for _ in range(videos)]  # 10-min videos
    nets = {"retrieval": scorer.build_retrieval_net(512), "generation": scorer.GenerationNet.build(512)}
    query = rng.normal(size=512).astype(np.float32)
    timings = {}
    for name, fn in (("kmeans8", lambda f: retrieval_frames(f, 8, 4, None)),
                     ("kmeans8+scorer4", lambda f: retrieval_frames(f, 8, 4, nets["retrieval"])),
                     ("kmeans64+scorer32", lambda f: generation_frames(f, query, 32, 64, nets["generation"]))):
        start = time.perf_counter()
        for f in feats:
            fn(f)
        timings[name + "_ms_per_video"] = round((time.perf_counter() - start) * 1000 / videos, 1)
    return {"frames_per_video": 600, "dim": 512, **timings}


def bench_ingest_visual(out: Path) -> dict:
    text = bench_ingest(out)
    folder = out / "ingest-videos"
    index_dir = out / "ingest-index-visual"
    shutil.rmtree(index_dir, ignore_errors=True)
    rag = VideoRAG(index_dir, Config(ingest=IngestConfig(visual="clip", visual_model=MODEL)))
    rag.embedder.embed(["warm up"])
    rag.asr.warm_up()
    rag.visual.embed_texts(["warm up"])
    rag.add([])
    start = time.perf_counter()
    rag.add([folder])
    seconds = time.perf_counter() - start
    return {"text_only_x_realtime": text["x_realtime"], "visual_x_realtime": round(text["video_seconds"] / seconds, 1),
            "video_seconds": text["video_seconds"], "visual_model": f"clip:{MODEL}"}


def bench_search_vt(out: Path, queries: int = 100) -> dict:
    from bench_core import bench_search

    bench_search(out)  # builds the 1,000-video index if missing
    index_dir = out / "search-index"
    rag = VideoRAG(index_dir, Config(search=SearchConfig(method="videorag-vt")))
    index = rag.index
    if not index.has_visual:
        rng = np.random.default_rng(2)
        index.enable_visual("clip", MODEL, f"clip:{MODEL}", 512)
        centres = rng.normal(size=(64, 512))
        for i, video_id in enumerate(sorted(index.video_ids())):
            v = centres[i % 64] + 0.8 * rng.normal(size=512)
            index.set_visual(video_id, [0.0], (v / np.linalg.norm(v)).astype(np.float32))
        rag = VideoRAG(index_dir, Config(search=SearchConfig(method="videorag-vt")))
    rag.search("warm up")
    times = []
    for q in range(queries):
        t0 = time.perf_counter()
        rag.search(f"how do I fix the hinge number {q}", top_k=10)
        times.append((time.perf_counter() - t0) * 1000)
    return {"videos": len(rag.index.video_ids()), "p50_ms": round(float(np.percentile(times, 50)), 2),
            "p95_ms": round(float(np.percentile(times, 95)), 2)}


if __name__ == "__main__":
    sys.exit(run(__doc__, (("frames", bench_frames), ("select", bench_select), ("ingest", bench_ingest_visual),
                           ("search", bench_search_vt)), "visual.json"))
