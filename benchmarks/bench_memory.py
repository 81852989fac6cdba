"""Peak memory of `videorag index` against video length (Reliability issue: peak RSS must not grow
with the video; target ≤ 1.5 GB for 1- and 3-hour videos with the embedded default).

Long videos are built by stream-copying the narrated ~10-min recordings of the moment benchmark
(WORK/moments/videos, rendered when missing) end to end, and cached as WORK/memory/long-<N>min.mp4.
Each size is indexed by `videorag index FILE --index DIR` (default config) in a fresh process;
its peak RSS comes from `os.wait4` on that process.

    python -m benchmarks memory --out results [--minutes 10,60,180] [--label after]
prints a table and stores the runs under `label` in OUT/memory.json (the other labels kept).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import av

from .moments.build import rendered
from .moments.corpus import recordings


def sources(folder: Path, min_seconds: float = 300.0) -> list[Path]:
    """The moment benchmark's long recordings in `folder`, rendered first when it has none."""
    found = [p for p in sorted(folder.glob("*.mp4")) if _seconds(p) >= min_seconds]
    return found or [rendered(rec, folder)[0] for rec in recordings() if rec.kind == "long"]


def _seconds(path: Path) -> float:
    with av.open(str(path)) as container:
        return container.duration / av.time_base


def long_video(work: Path, minutes: int) -> Path:
    """A video of at least `minutes` minutes: the sources stream-copied end to end (cached)."""
    path = work / "memory" / f"long-{minutes}min.mp4"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".partial.mp4")
    inputs = sources(work / "moments" / "videos")
    with av.open(str(inputs[0])) as first, av.open(str(tmp), "w") as out:
        video = out.add_stream_from_template(first.streams.video[0])
        audio = out.add_stream_from_template(first.streams.audio[0])
        offset, n = 0.0, 0
        while offset < minutes * 60:
            offset += _append(inputs[n % len(inputs)], out, video, audio, offset)
            n += 1
    tmp.replace(path)
    return path


def _append(src: Path, out, video, audio, offset: float) -> float:
    """Mux src's packets shifted by `offset` seconds; returns src's length in seconds."""
    end = 0.0
    with av.open(str(src)) as container:
        streams = {container.streams.video[0]: video, container.streams.audio[0]: audio}
        for packet in container.demux(*streams):
            if packet.dts is None:  # the demuxer's flush packet
                continue
            shift = round(offset / packet.time_base)
            end = max(end, float((packet.pts + packet.duration) * packet.time_base))
            packet.pts += shift
            packet.dts += shift
            packet.stream = streams[packet.stream]
            out.mux(packet)
    return end


def measure(video: Path, index_dir: Path) -> dict:
    """Index `video` into a fresh `index_dir` in a child process: wall seconds and peak RSS."""
    shutil.rmtree(index_dir, ignore_errors=True)
    command = [sys.executable, "-m", "videorag.cli", "index", str(video), "--index", str(index_dir)]
    start = time.perf_counter()
    child = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    log = child.stderr.read()
    child.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"videorag index failed on {video}:\n{log[-2000:]}")
    seconds = _seconds(video)
    return {"video_minutes": round(seconds / 60, 1), "wall_seconds": round(wall, 1),
            "x_realtime": round(seconds / wall, 1), "peak_rss_gb": round(usage.ru_maxrss / 2**20, 2)}


def options(parser) -> None:
    parser.add_argument("--minutes", default="10,60,180", help="comma-separated video lengths")
    parser.add_argument("--label", default="current", help="key of these runs in OUT/memory.json")


def main(run) -> dict:
    runs, index = {}, run.work / "memory" / "index"
    print(f"{'minutes':>8} {'wall s':>8} {'× realtime':>11} {'peak RSS GB':>12}", flush=True)
    for minutes in (int(m) for m in run.args.minutes.split(",")):
        runs[str(minutes)] = figures = measure(long_video(run.work, minutes), index)
        print(f"{figures['video_minutes']:>8} {figures['wall_seconds']:>8} {figures['x_realtime']:>11} "
              f"{figures['peak_rss_gb']:>12}", flush=True)
    shutil.rmtree(index, ignore_errors=True)
    stored = run.previous()
    stored.setdefault(run.args.label, {}).update(runs)
    return stored
