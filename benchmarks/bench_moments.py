"""Moment benchmark: does a hit point at the step that answers, not just at the right video?

Renders the recordings of benchmarks/moments/ (long 10–20 min livestream-style recordings whose
intro lists every topic, and short how-to videos; cached), indexes them (cached, incremental),
then runs `videorag eval index`'s metrics for each method on the DEV and TEST golden sets:
window_hit@1, video_hit@1 (plain search), moment_recall@5 / @10 and moment_mrr (moment search),
split long vs short. Tune on DEV only; TEST's questions are written in another style.

Usage: python benchmarks/bench_moments.py [--methods textvideorag,NAME,...] [--out bench-results]
           [--results results/moments] [--set search.max_correction=0 --set ingest.segment_context=0 ...]
Prints the table and writes OUT/moments.json (with per-question hits) and RESULTS/README.md.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from moments.build import SPEED, build  # noqa: E402
from moments.corpus import KINDS, SPLITS, recordings  # noqa: E402

from videorag import Config, VideoRAG  # noqa: E402
from videorag.eval.commands import evaluate_index  # noqa: E402
from videorag.eval.datasets import load_golden_jsonl  # noqa: E402

NOTES = "## Beside it"   # the hand-written part of the README, kept when the table is rewritten
METRICS = ("window_hit@1", "video_hit@1", "moment_recall@5", "moment_recall@10", "moment_mrr")   # per question
COLUMNS = (*METRICS, "cited_seconds")


def index_videos(rag: VideoRAG, videos: Path, keep: set[str]) -> dict:
    """Index the folder (incremental) and drop videos that are no longer in the corpus."""
    start = time.perf_counter()
    report = rag.add([videos])
    seconds = time.perf_counter() - start
    if report.partial:
        raise SystemExit(f"ingest failed: {[f.error for f in report.failed]}")
    stale = [v for v in rag.index.videos(["video_id"])["video_id"].to_pylist() if v not in keep]
    rag.remove(stale)
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


def setting(config: Config, item: str) -> str:
    """Applies one KEY=VALUE (dotted path into the config, the value read as the current one's
    type) and returns the key."""
    key, _, value = item.partition("=")
    *path, name = key.split(".")
    target = config
    for part in path:
        target = getattr(target, part)
    current = getattr(target, name)
    if current is None:   # no type to follow: a bool, a number or text, as written
        import ast

        lowered = value.lower()
        parsed = lowered == "true" if lowered in ("true", "false") else value
        if parsed is value:
            try:
                parsed = ast.literal_eval(value) if value[:1].isdigit() or value[:1] in "-." else value
            except (ValueError, SyntaxError):
                parsed = value
        setattr(target, name, parsed)
        return key
    kind = type(current)
    setattr(target, name, value.lower() in ("1", "true", "yes") if kind is bool else kind(value))
    return key


def revision() -> str:
    """The code measured: the commit, marked -dirty when the tree has uncommitted changes."""
    try:
        return subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


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
        "this run). Per-question hits: `bench-results/moments.json`.", ""])
    path.parent.mkdir(parents=True, exist_ok=True)
    notes = path.read_text().partition(NOTES)[2] if path.exists() else ""
    path.write_text(text + (f"\n{NOTES}{notes}" if notes else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--methods", default="textvideorag", help="comma-separated search method names")
    parser.add_argument("--out", type=Path, default=ROOT / "bench-results")
    parser.add_argument("--results", type=Path, default=ROOT / "results" / "moments")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting for an ablation, e.g. search.max_correction=0 or ingest.segment_context=0 "
                             "(ingest settings get an index of their own); the results README is left alone")
    args = parser.parse_args()
    work = args.out / "moments"
    videos = work / "videos"
    golden = build(videos, work)
    items = {split: load_golden_jsonl(path) for split, path in golden.items()}
    rows = {split: [json.loads(line) for line in path.open()] for split, path in golden.items()}
    kinds = {r["id"]: r["kind"] for split in rows for r in rows[split]}
    config = Config()
    ingest = [item for item in args.set if setting(config, item).startswith("ingest.")]
    rag = VideoRAG(work / "-".join(["index", *ingest]), config)
    indexed = index_videos(rag, videos, {v for split in items for it in items[split] for v in it.relevant})
    print(f"index: {indexed}", file=sys.stderr)
    runs = []
    for method in [m.strip() for m in args.methods.split(",") if m.strip()]:
        for split in SPLITS:
            result = evaluate_index(rag, items[split], method)
            runs.append({"method": method, "split": split, "by_kind": breakdown(result, kinds), "result": result})
    command = "python benchmarks/bench_moments.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    payload = {"command": command.strip(), "revision": revision(), "index": indexed, "runs": runs}
    print(table(runs))
    for run in runs:
        print(run["method"], run["split"], "stage ms:", run["result"].get("stages_ms"))
    if args.set:
        out = args.out / f"moments-{hashlib.sha1(' '.join(args.set).encode()).hexdigest()[:10]}.json"
        out.write_text(json.dumps(payload, indent=1))
        print(f"wrote {out}")
        return
    (args.out / "moments.json").write_text(json.dumps(payload, indent=1))
    write_readme(args.results / "README.md", command.strip(), runs, payload, videos)
    print(f"wrote {args.out / 'moments.json'} and {args.results / 'README.md'}")


if __name__ == "__main__":
    main()
