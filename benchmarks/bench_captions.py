"""Frame-caption benchmark (issue: captions of sampled frames stored in the index, RAG-Adapter's
CaptionsDB): ingest × realtime with OCR captions on beside off, on the same ≥ 10 minutes of
narrated slide video as `bench_core.py` (30 fps, 640×360, ~70 s how-tos of 14 steps), in one run;
plus where the caption time goes (frames OCR'd after deduplication, the caption stage alone).

Usage: python benchmarks/bench_captions.py [--out bench-results]
Prints figures and writes OUT/captions.json.
"""
from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_core import bench_ingest, run  # noqa: E402

from videorag import Config, IngestConfig, VideoRAG  # noqa: E402


def bench_ingest_captions(out: Path) -> dict:
    text = bench_ingest(out)  # renders the videos if missing; captions off
    index_dir = out / "ingest-index-captions"
    shutil.rmtree(index_dir, ignore_errors=True)
    rag = VideoRAG(index_dir, Config(ingest=IngestConfig(captioner="ocr")))
    rag.embedder.embed(["warm up"])
    rag.asr.warm_up()
    rag.add([])
    start = time.perf_counter()
    report = rag.add([out / "ingest-videos"])
    seconds = time.perf_counter() - start
    stats = rag.info()
    return {"video_seconds": text["video_seconds"], "videos": text["videos"],
            "captions_off_x_realtime": text["x_realtime"],
            "captions_on_x_realtime": round(text["video_seconds"] / seconds, 1),
            "captions_off_seconds": text["ingest_seconds"], "captions_on_seconds": round(seconds, 2),
            "report": report.summary(), "frames": stats["frames"], "captions": stats["captions"],
            **_caption_stage(rag, text["video_seconds"]), "captioner": rag.captioner.model_name}


def _caption_stage(rag: VideoRAG, video_seconds: float) -> dict:
    """The caption stage alone (dedup + OCR + transcript joining, then embedding) on the
    indexed frames: how many frames were OCR'd and how fast the stage runs."""
    from videorag.caption.dedup import distinct
    from videorag.embed import embed_long

    index, ocr_frames, ocr_s, embed_s = rag.index, 0, 0.0, 0.0
    for video_id in sorted(index.video_ids()):
        frames, segments = index.frames(video_id), index.segments(video_id)
        ocr_frames += len(set(distinct(frames)))
        t0 = time.perf_counter()
        captions = rag.captioner.caption(frames, segments)
        t1 = time.perf_counter()
        embed_long(rag.embedder, list(dict.fromkeys(c.text for c in captions)))
        ocr_s, embed_s = ocr_s + t1 - t0, embed_s + time.perf_counter() - t1
    return {"ocr_frames": ocr_frames, "caption_stage_seconds": round(ocr_s, 2),
            "caption_embed_seconds": round(embed_s, 2),
            "caption_stage_x_realtime": round(video_seconds / (ocr_s + embed_s), 1)}


if __name__ == "__main__":
    sys.exit(run(__doc__, (("ingest", bench_ingest_captions),), "captions.json"))
