"""Ingest × realtime on ≥ 10 min of narrated video: the local engine (5 runs: min / median / max)
beside the Ray engine on the same videos on this machine (its overhead), and each engine's word
error rate against the narrated scripts (and between the two: Whisper's output can differ between
processes — its timestamp tokens are brittle to tiny numeric differences).

Local runs: models loaded and the index created before the clock starts (throughput). Ray runs:
Ray started before the clock (`ray_start_seconds` reported apart); each run's clock includes
its actors loading the models (the price of a run on Ray).

    python -m benchmarks ingest_engines [--skip local,ray]      # writes OUT/ingest_engines.json
"""
from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import numpy as np

from videorag import VideoRAG

from .bench_core import ingest_videos, timed_add

RUNS = {"local": 5, "ray": 3}


def _runs(run, engine: str) -> dict:
    folder, scripts, total = ingest_videos(run.work)
    n = len(scripts)
    config = run.config(f"ingest.engine={engine}", "show_progress=false")
    result, speeds = {"videos": n, "video_seconds": round(total, 1)}, []
    if engine == "ray":
        import ray

        start = time.perf_counter()
        ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False)
        result["ray_start_seconds"] = round(time.perf_counter() - start, 1)
    for i in range(RUNS[engine]):
        index_dir = run.work / f"ingest-engine-{engine}"
        shutil.rmtree(index_dir, ignore_errors=True)
        rag = VideoRAG(index_dir, config)
        if engine == "local":
            rag.library.embedder.embed(["warm up"])
            rag.library.asr.warm_up()
        report, seconds = timed_add(rag, folder)
        speeds.append(total / seconds)
        assert report.count("added") == n, report.summary()
        print(engine, i, f"{speeds[-1]:.1f} x realtime", flush=True)
    result["wer_vs_script"] = round(_wer_of(run.work / f"ingest-engine-{engine}", scripts), 4)
    result["x_realtime"] = {"min": round(min(speeds), 1), "median": round(float(np.median(speeds)), 1),
                            "max": round(max(speeds), 1), "runs": len(speeds)}
    return result


def bench_local(run) -> dict:
    return _runs(run, "local")


def bench_ray(run) -> dict:
    result = _runs(run, "ray")
    result["same_as_local"] = _same(run.work / "ingest-engine-local", run.work / "ingest-engine-ray")
    return result


def _transcripts(index: Path) -> dict[str, str]:
    """{file name: its transcript} of an index."""
    rag = VideoRAG(index)
    names = {r["video_id"]: Path(r["path"]).name for r in rag.library.index.videos(["video_id", "path"]).to_pylist()}
    segments = sorted((r for r in rag.library.index.units().to_pylist() if r["kind"] == "segment"),
                      key=lambda r: (r["video_id"], r["start"]))
    out: dict[str, list[str]] = {}
    for r in segments:
        out.setdefault(names[r["video_id"]], []).append(r["text"])
    return {name: " ".join(texts) for name, texts in out.items()}


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def wer(reference: str, hypothesis: str, split=_words) -> tuple[int, int]:
    """(word edits, reference words): Levenshtein distance over the words `split` finds (English
    ones by default)."""
    ref, hyp = split(reference), split(hypothesis)
    row = list(range(len(hyp) + 1))
    for i, word in enumerate(ref, 1):
        prev, row[0] = row[0], i
        for j, other in enumerate(hyp, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (word != other))
    return row[-1], len(ref)


def _wer_of(index: Path, references: dict[str, str]) -> float:
    found = _transcripts(index)
    pairs = [wer(text, found.get(name, "")) for name, text in references.items()]
    return sum(e for e, _ in pairs) / max(1, sum(n for _, n in pairs))


def _same(a: Path, b: Path) -> dict:
    """How far two indexes of the same videos agree: their transcripts' WER against each other."""
    first, second = _transcripts(a), _transcripts(b)
    return {"videos_with_identical_transcripts": sum(first[k] == second.get(k) for k in first),
            "videos": len(first), "wer_between_engines": round(_wer_of(b, first), 4)}


PARTS = {"local": bench_local, "ray": bench_ray}
