"""Frame-caption benchmark (issue: captions of sampled frames stored in the index, RAG-Adapter's
CaptionsDB): ingest × realtime with OCR captions on beside off, on the same ≥ 10 minutes of
narrated slide video as `core` (30 fps, 640×360, ~70 s how-tos of 14 steps), in one run; plus
where the caption time goes (frames OCR'd after deduplication, the caption stage alone).

    python -m benchmarks captions      # writes OUT/captions.json
"""
from __future__ import annotations

import time

from videorag import VideoRAG

from .bench_core import bench_ingest, timed_add, warm_rag


def bench_ingest_captions(run) -> dict:
    text = bench_ingest(run)  # renders the videos if missing; captions off
    rag = warm_rag(run.work / "ingest-index-captions", run.config("ingest.captioner=ocr"))
    report, seconds = timed_add(rag, run.work / "ingest-videos")
    stats = rag.library.info()
    return {"video_seconds": text["video_seconds"], "videos": text["videos"],
            "captions_off_x_realtime": text["x_realtime"],
            "captions_on_x_realtime": round(text["video_seconds"] / seconds, 1),
            "captions_off_seconds": text["ingest_seconds"], "captions_on_seconds": round(seconds, 2),
            "report": report.summary(), "frames": stats["frames"], "captions": stats["captions"],
            **_caption_stage(rag, text["video_seconds"]), "captioner": rag.library.captioner.model_name}


def _caption_stage(rag: VideoRAG, video_seconds: float) -> dict:
    """The caption stage alone (dedup + OCR + transcript joining, then embedding) on the
    indexed frames: how many frames were OCR'd and how fast the stage runs."""
    from videorag.caption.dedup import distinct
    from videorag.embed import embed_long

    index, ocr_frames, ocr_s, embed_s = rag.library.index, 0, 0.0, 0.0
    for video_id in sorted(index.video_ids()):
        frames, segments = index.frames(video_id), index.segments(video_id)
        ocr_frames += len(set(distinct(frames)))
        t0 = time.perf_counter()
        captions = rag.library.captioner.caption(frames, segments)
        t1 = time.perf_counter()
        embed_long(rag.library.embedder, list(dict.fromkeys(c.text for c in captions)))
        ocr_s, embed_s = ocr_s + t1 - t0, embed_s + time.perf_counter() - t1
    return {"ocr_frames": ocr_frames, "caption_stage_seconds": round(ocr_s, 2),
            "caption_embed_seconds": round(embed_s, 2),
            "caption_stage_x_realtime": round(video_seconds / (ocr_s + embed_s), 1)}


PARTS = {"ingest": bench_ingest_captions}
