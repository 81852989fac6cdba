"""Visual-path benchmarks (issue: frame embeddings, VideoRAG-V / VT, adaptive frame selection).

1. `frames`: frame-embedding throughput (frames/s) for CLIP ViT-B/32 built without weights
   (`random-base`: the smallest real CLIP architecture; speed does not depend on the weights' values);
2. `select`: k-means++ (k=8 and k=64) plus learned-subset selection time per video;
3. `ingest`: ingest × realtime with the visual path on, beside text-only, on the same videos in one run;
4. `search`: `videorag-vt` search latency at 1,000 videos.

    python -m benchmarks visual [--skip frames,select,ingest,search]      # writes OUT/visual.json
"""
from __future__ import annotations

import time

import numpy as np

from videorag import VideoRAG

from .bench_core import bench_ingest, search_index, timed_add, warm_rag
from .synthetic import percentiles, times_ms

MODEL = "random-base"


def bench_frames(run, n: int = 96) -> dict:
    from videorag.visual import create_visual

    model = create_visual("clip", MODEL, batch_size=32)
    images = [np.random.default_rng(i).integers(0, 255, (360, 640, 3), dtype=np.uint8) for i in range(n)]
    model.embed_images(images[:8])
    start = time.perf_counter()
    model.embed_images(images)
    seconds = time.perf_counter() - start
    return {"model": f"clip:{MODEL} (ViT-B/32)", "frames": n, "frames_per_s": round(n / seconds, 1)}


def bench_select(run, videos: int = 20) -> dict:
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
        timings[name + "_ms_per_video"] = round(sum(times_ms(fn, feats)) / videos, 1)
    return {"frames_per_video": 600, "dim": 512, **timings}


def bench_ingest_visual(run) -> dict:
    text = bench_ingest(run)
    rag = warm_rag(run.work / "ingest-index-visual", run.config("ingest.visual=clip", f"ingest.visual_model={MODEL}"))
    rag.library.visual.embed_texts(["warm up"])
    _, seconds = timed_add(rag, run.work / "ingest-videos")
    return {"text_only_x_realtime": text["x_realtime"], "visual_x_realtime": round(text["video_seconds"] / seconds, 1),
            "video_seconds": text["video_seconds"], "visual_model": f"clip:{MODEL}"}


def bench_search_vt(run, queries: int = 100) -> dict:
    index_dir = search_index(run)   # the 1,000-video index, built if missing
    rag = VideoRAG(index_dir, run.config("search.method=videorag-vt"))
    index = rag.library.index
    if not index.has_visual:
        rng = np.random.default_rng(2)
        index.enable_visual("clip", MODEL, f"clip:{MODEL}", 512)
        centres = rng.normal(size=(64, 512))
        for i, video_id in enumerate(sorted(index.video_ids())):
            v = centres[i % 64] + 0.8 * rng.normal(size=512)
            index.set_visual(video_id, [0.0], (v / np.linalg.norm(v)).astype(np.float32))
        rag = VideoRAG(index_dir, run.config("search.method=videorag-vt"))
    rag.search("warm up")
    times = times_ms(lambda q: rag.search(f"how do I fix the hinge number {q}", top_k=10), range(queries))
    return {"videos": len(rag.library.index.video_ids()), **percentiles(times)}


PARTS = {"frames": bench_frames, "select": bench_select, "ingest": bench_ingest_visual, "search": bench_search_vt}
