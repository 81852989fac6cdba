"""Moment benchmark: does a hit point at the step that answers, not just at the right video?

Renders the recordings of benchmarks/moments/ (long 10–20 min livestream-style recordings whose
intro lists every topic, and short how-to videos; cached in WORK/moments), indexes them (cached,
incremental; `ingest.*` settings get an index of their own), then runs `videorag eval index`'s
metrics for each method on the DEV and TEST golden sets: window_hit@1, video_hit@1 (plain
search), moment_recall@5 / @10 and moment_mrr (moment search), split long vs short. Tune on DEV
only; TEST's questions are written in another style.

    python -m benchmarks moments [--methods textvideorag,NAME,...] [--results results/moments]
        [--set search.max_correction=0 --set ingest.segment_context=0 ...]
prints the table and writes OUT/moments.json (with per-question hits) and RESULTS/README.md (not
with --set: an ablation writes OUT/moments-HASH.json alone). The other benchmarks on these
videos (judge, answers, carve) share `golden` and `moment_rag`.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from videorag import VideoRAG
from videorag.eval.commands import evaluate_index
from videorag.eval.datasets import load_golden_jsonl

from .driver import ROOT, ingest_items, revision, write_report
from .moments.build import SPEED, build
from .moments.corpus import KINDS, SPLITS, recordings

NOTES = "## Beside it"   # the hand-written part of the README, kept when the table is rewritten
METRICS = ("window_hit@1", "video_hit@1", "moment_recall@5", "moment_recall@10", "moment_mrr")   # per question
COLUMNS = (*METRICS, "cited_seconds")


@dataclass
class Golden:
    """The moment benchmark's golden sets, with their videos rendered, under WORK/moments."""

    work: Path
    rows: dict[str, list[dict]]   # split -> golden rows as written (with "kind" and "video")
    items: dict[str, list]        # split -> the same, read as `videorag eval index` reads them

    @property
    def videos(self) -> Path:
        return self.work / "videos"

    @property
    def kinds(self) -> dict[str, str]:
        return {r["id"]: r["kind"] for rows in self.rows.values() for r in rows}

    @property
    def relevant(self) -> set[str]:
        return {v for rows in self.rows.values() for r in rows for v in r["relevant"]}


def golden(run) -> Golden:
    """Renders what is missing and writes the golden sets (both cached in WORK/moments)."""
    work = run.work / "moments"
    paths = build(work / "videos", work)
    return Golden(work, {split: [json.loads(line) for line in path.open()] for split, path in paths.items()},
                  {split: load_golden_jsonl(path) for split, path in paths.items()})


def moment_rag(run, gold: Golden) -> tuple[VideoRAG, dict]:
    """The index of the moment videos for the run's `ingest.*` settings (one per set of them), brought
    up to date, with the run's config; and what indexing did."""
    rag = VideoRAG(gold.work / "-".join(["index", *ingest_items(run.settings)]), run.config())
    indexed = index_videos(rag, gold.videos, gold.relevant)
    print(f"index: {indexed}", file=sys.stderr)
    return rag, indexed


def index_videos(rag: VideoRAG, videos: Path, keep: set[str]) -> dict:
    """Index the folder (incremental) and drop videos that are no longer in the corpus."""
    start = time.perf_counter()
    report = rag.add([videos])
    seconds = time.perf_counter() - start
    if report.partial:
        raise SystemExit(f"ingest failed: {[f.error for f in report.failed]}")
    stale = [v for v in rag.library.index.videos(["video_id"])["video_id"].to_pylist() if v not in keep]
    rag.library.remove(stale)
    return {"summary": report.summary(), "seconds": round(seconds, 1), "removed_stale": len(stale)}


def breakdown(result: dict, kinds: dict[str, str]) -> dict:
    """Mean of each moment metric over the questions of each kind (and all of them)."""
    rows = [r for r in result["per_item"] if "window_hit@1" in r]
    out = {}
    for kind in (*KINDS, "all"):
        chosen = [r for r in rows if kind == "all" or kinds[r["qid"]] == kind]
        out[kind] = {"n": len(chosen), **{c: round(float(np.mean([r[c] for r in chosen])), 3) if chosen else None
                                        for c in METRICS}}
        spans = [r["top"][0] for r in chosen if r.get("top")]
        out[kind]["cited_seconds"] = round(float(np.mean([end - start for _, start, end in spans])), 1) if spans else None
    return out


def table(runs: list[dict]) -> str:
    head = "| method | split | videos | n | " + " | ".join(COLUMNS) + " |\n|" + "---|" * (len(COLUMNS) + 4)
    lines = [head]
    for run in runs:
        for kind in (*KINDS, "all"):
            cell = run["by_kind"][kind]
            values = " | ".join("–" if cell[c] is None else f"{cell[c]:.1f}" if c == "cited_seconds" else f"{cell[c]:.3f}"
                                for c in COLUMNS)
            lines.append(f"| {run['method']} | {run['split']} | {kind} | {cell['n']} | {values} |")
    return "\n".join(lines)


def corpus_summary(spans_dir: Path) -> list[str]:
    lines = []
    for split in SPLITS:
        for kind in KINDS:
            recs = [r for r in recordings() if r.split == split and r.kind == kind]
            minutes = sum(json.loads((spans_dir / f"{r.slug}.spans.json").read_text())["spans"][-1][1]
                          for r in recs) / 60
            lines.append(f"- {split} / {kind}: {len(recs)} videos, {minutes:.0f} min, "
                         f"{sum(len(r.questions) for r in recs)} questions ({', '.join(r.slug for r in recs)})")
    return lines


def write_readme(path: Path, command: str, runs: list[dict], payload: dict, videos: Path) -> None:
    text = "\n".join([
        "# Moment benchmark: is the cited moment the one that answers?", "", "Produced by:", "", "```",
        command, "```", "",
        "Videos rendered like real recordings (espeak-ng narration at "
        f"{SPEED} wpm over slides, transcribed by the index's ASR), content in `benchmarks/moments/`. "
        "LONG recordings open with a greeting that names every topic and a sponsor read, then chapters "
        "with off-topic chatter between them and a recap; SHORT ones are 1-minute how-tos. Each question "
        "is answered by one step; its gold window is that step's span. DEV and TEST have disjoint videos, "
        "and TEST's questions are phrased in another style (situational, indirect, terse keywords). "
        "Tune on DEV only.", "",
        *corpus_summary(videos), "",
        "- window_hit@1: the top hit of plain search (one hit per video) is the gold video and its "
        "[start, end] overlaps the gold window; video_hit@1: the top hit is the gold video.",
        "- moment_recall@k: one of the top k moments of `search(moments=True)` overlaps the gold window; "
        "moment_mrr: reciprocal rank of the first such moment; cited_seconds: the mean length of the top "
        "hit's [start, end] (a longer citation overlaps a step more easily).", "",
        table(runs), "",
        f"Code: `{payload['revision']}`. Index: {payload['index']['summary']} ({payload['index']['seconds']} s "
        "this run). Per-question hits: `bench-results/moments.json` (`.json.gz` when large).", ""])
    write_report(path, text, NOTES)


def options(parser) -> None:
    parser.add_argument("--methods", default="textvideorag", help="comma-separated search method names")
    parser.add_argument("--results", type=Path, default=ROOT / "results" / "moments",
                        help="its README.md gets the table (its notes kept); left alone with --set")


def main(run) -> dict:
    gold = golden(run)
    rag, indexed = moment_rag(run, gold)
    runs = []
    for method in [m.strip() for m in run.args.methods.split(",") if m.strip()]:
        for split in SPLITS:
            result = evaluate_index(rag, gold.items[split], method)
            runs.append({"method": method, "split": split, "by_kind": breakdown(result, gold.kinds), "result": result})
    payload = {"command": run.command, "revision": revision(), "index": indexed, "runs": runs}
    print(table(runs))
    for r in runs:
        print(r["method"], r["split"], "stage ms:", r["result"].get("stages_ms"))
    if not run.settings:
        write_readme(run.args.results / "README.md", run.command, runs, payload, gold.videos)
        print(f"wrote {run.args.results / 'README.md'}")
    return payload
