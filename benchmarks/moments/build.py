"""Render the moment benchmark's videos (cached) and write its golden sets (every benchmark on
the moment benchmark calls `build`; `python -m tools.build_moments` runs it alone).

Each recording becomes DIR/<slug>.mp4 (espeak-ng narration at 140 wpm over slides, 480x270 at 10 fps) with
DIR/<slug>.spans.json beside it (each line's time span, and a digest of the content: an edited
recording is rendered again, an unchanged one is skipped). OUT/dev.jsonl and OUT/test.jsonl
hold one golden row per question, in `videorag eval index`'s format plus "kind" and "video":
{"id", "query", "relevant": [video_id], "windows": {video_id: [[start, end]]}, "kind", "video"},
where video_id is the index's content id of the rendered file.
"""
from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path

from videorag.demo.render import HowTo, StepSpan, render
from videorag.ingest.discover import content_id

from .corpus import SPLITS, Recording, recordings

OUT = Path(__file__).resolve().parents[2] / "bench-results" / "moments"
FPS, SIZE, SPEED = 10, (480, 270), 140  # 140 wpm: a relaxed talker, like a livestream


def howto(rec: Recording) -> HowTo:
    steps = rec.steps()
    return HowTo(rec.slug, rec.title, tuple(s[2] for s in steps), tuple(s[3] for s in steps))


def digest(rec: Recording) -> str:
    h = howto(rec)
    return hashlib.sha1(json.dumps([h.title, h.steps, h.slides, FPS, SIZE, SPEED]).encode()).hexdigest()[:16]


def rendered(rec: Recording, videos: Path) -> tuple[Path, list[StepSpan]]:
    """The recording's video and step spans, rendered unless an up-to-date copy is cached."""
    path, meta = videos / f"{rec.slug}.mp4", videos / f"{rec.slug}.spans.json"
    if path.is_file() and meta.is_file():
        cached = json.loads(meta.read_text())
        if cached["digest"] == digest(rec):
            return path, [StepSpan(*s) for s in cached["spans"]]
    videos.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    tmp = path.with_suffix(".partial.mp4")
    spans = render(howto(rec), tmp, fps=FPS, size=SIZE, speed=SPEED)
    tmp.replace(path)
    meta.write_text(json.dumps({"digest": digest(rec), "spans": [[s.start, s.end, s.text] for s in spans]}))
    print(f"rendered {path.name}: {spans[-1].end / 60:.1f} min in {time.perf_counter() - start:.0f} s",
          file=sys.stderr)
    return path, spans


def golden_rows(rec: Recording, video_id: str, spans: list[StepSpan]) -> list[dict]:
    index = {(part, line): i for i, (part, line, _, _) in enumerate(rec.steps())}
    rows = []
    for n, question in enumerate(rec.questions, 1):
        windows = [[round(spans[index[question.part, line]].start, 3), round(spans[index[question.part, line]].end, 3)]
                   for line in question.lines]
        rows.append({"id": f"{rec.slug}#{n}", "query": question.text, "relevant": [video_id],
                     "windows": {video_id: windows}, "kind": rec.kind, "video": rec.slug})
    return rows


def build(videos: Path = OUT / "videos", out: Path = OUT, only: set[str] | None = None) -> dict[str, Path]:
    """Render what is missing, write OUT/<split>.jsonl; returns {split: golden path}."""
    rows: dict[str, list[dict]] = {split: [] for split in SPLITS}
    for rec in recordings():
        if only and rec.slug not in only:
            continue
        path, spans = rendered(rec, videos)
        rows[rec.split] += golden_rows(rec, content_id(path), spans)
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for split, items in rows.items():
        paths[split] = out / f"{split}.jsonl"
        paths[split].write_text("".join(json.dumps(r) + "\n" for r in items))
    return paths

