"""Judged search on the moment benchmark: quality against cost, one row per setting.

Each row is a list of settings (as `--set` takes them) applied to a fresh `Config` with judged
search on, after the run's own `--set` items (`--set ingest.captioner=ocr` judges over the OCR
index). In the `cost` grid the judge's memo is emptied before each row, so every row pays for its
own judgements and its latency is its own; the `mix` grid (how judgements are combined with
retrieval) shares it, so its latency column is not a row's own. Rows run in one process over the
moment benchmark's index (rendered and built by `moments`' code, cached). Columns, per split and
kind (dev / test × long / short): window_hit@1 (the cited moment of plain search holds the
answer), video_hit@1, moment_recall@5, chunk_recall@5, cited_seconds; and over every question the
judge stage's p50 / p95 in ms.

    python -m benchmarks judge [--grid cost|mix] [--judge-model PATH_OR_NAME] [--method NAME]
        [--row "search.judge.candidates=4 search.judge.cite_context=0" ...] [--results results/judge]
prints the table and writes OUT/judge-GRID.json (per question; RESULTS/README.md's table part too
with --results).
"""
from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import numpy as np

from videorag import VideoRAG
from videorag.config import Config, apply_overrides
from videorag.eval.commands import evaluate_index

from .bench_moments import golden, moment_rag
from .driver import revision, write_report
from .moments.corpus import KINDS, SPLITS

GRIDS = {
    # what a query costs: each row pays for its own judgements
    "cost": ["search.judge.enabled=false",
             "", "search.judge.candidates=3", "search.judge.candidates=4", "search.judge.candidates=8",
             "search.judge.cite_context=0", "search.judge.read_context=1"],
    # how the judgements are used: rows share the judge's memo (their latency is not their own)
    "mix": ["", "search.judge.weight=0.5", "search.judge.weight=1.0", "search.judge.video_weight=0",
            "search.judge.video_weight=1", "search.judge.videos=2", "search.judge.videos=5"],
}
COLUMNS = ("window_hit@1", "video_hit@1", "moment_recall@5", "chunk_recall@5", "cited_seconds")


def run_row(rag: VideoRAG, items: dict, kinds: dict, method: str, fresh: bool = True) -> dict:
    """Every split's questions under the rag's current settings; means per split and kind. With
    `fresh`, the judge's memo is emptied first (the row pays for its own judgements)."""
    if fresh:
        rag.judge.forget()
    out, stages = {}, []
    for split in SPLITS:
        result = evaluate_index(rag, items[split], method)
        rows = [r for r in result["per_item"] if "window_hit@1" in r]
        for kind in KINDS:
            chosen = [r for r in rows if kinds[r["qid"]] == kind]
            cell = {c: float(np.mean([r[c] for r in chosen])) for c in COLUMNS[:-1]}
            cell["cited_seconds"] = float(np.mean([r["top"][0][2] - r["top"][0][1] for r in chosen if r.get("top")]))
            cell["n"] = len(chosen)
            out[f"{split}/{kind}"] = cell
        stages.append(result.get("stages_ms", {}))
        out[f"{split}/per_item"] = result["per_item"]
    judge = [s.get("judge", s.get("rerank")) for s in stages if "judge" in s or "rerank" in s]   # carve: its rerank
    out["judge_ms"] = {q: round(float(np.mean([j[q] for j in judge])), 0) for q in ("p50", "p95")} if judge else None
    out["query_ms"] = {q: round(float(np.mean([s["total"][q] for s in stages])), 0) for q in ("p50", "p95")}
    return out


def table(rows: list[tuple[str, dict]]) -> str:
    cells = [f"{s}/{k}" for s in SPLITS for k in KINDS]
    head = ("| setting | " + " | ".join(f"{c} hit@1 / video@1 / mom@5 / chunk@5 / s" for c in cells)
            + " | judge p50 / p95 ms | query p50 / p95 ms |\n|" + "---|" * (len(cells) + 3))
    lines = [head]
    for name, r in rows:
        parts = [" / ".join(f"{r[c][m]:.2f}" if m != "cited_seconds" else f"{r[c][m]:.0f}" for m in COLUMNS)
                 for c in cells]
        ms = f"{r['judge_ms']['p50']:.0f} / {r['judge_ms']['p95']:.0f}" if r["judge_ms"] else "–"
        total = f"{r['query_ms']['p50']:.0f} / {r['query_ms']['p95']:.0f}"
        lines.append(f"| {name or '(defaults)'} | " + " | ".join(parts) + f" | {ms} | {total} |")
    return "\n".join(lines)


NOTES = "## Reading"   # the hand-written part of the README, kept when the table is rewritten


def write_readme(path: Path, command: str, text: str) -> None:
    head = "\n".join(["# Judged search on the moment benchmark: quality against cost", "", "Produced by:", "",
                      "```", command, "```", "",
                      "Cells per split / kind: window_hit@1 / video_hit@1 / moment_recall@5 / chunk_recall@5 "
                      "(V-RAGBench's: a top-5 moment's 120 s chunk holds the answer) / cited seconds "
                      "(the mean length of the top hit's citation). Latency: the judge stage of one query, "
                      "p50 / p95 over all questions, on this machine (2 cores).", "", text, "",
                      f"Code: `{revision()}`.", ""])
    write_report(path, head, NOTES)


def options(parser) -> None:
    parser.add_argument("--grid", default="cost", choices=sorted(GRIDS))
    parser.add_argument("--shared-memo", action="store_true",
                        help="keep the judge's memo across rows (the mix grid's default): quality only")
    parser.add_argument("--row", action="append", default=[], help="a row of settings (replaces the grid)")
    parser.add_argument("--method", default="textvideorag")
    parser.add_argument("--judge-model", default=None, help="the judge's GGUF (path or model name)")
    parser.add_argument("--results", type=Path, default=None,
                        help="also write the table into this folder's README.md (its notes below the table kept)")


def row_config(run, row: str) -> Config:
    """Judged search on (with the judge's model), the run's `--set` items, then the row's."""
    config = Config()
    config.search.judge.enabled = True
    config.search.judge.reranker.model = run.args.judge_model
    return apply_overrides(config, [*run.settings, *shlex.split(row)])


def main(run) -> dict:
    args = run.args
    run.label = args.grid
    gold = golden(run)
    kinds = gold.kinds
    rag, _ = moment_rag(run, gold)
    rows = []
    for row in args.row or GRIDS[args.grid]:
        rag.config = row_config(run, row)
        start = time.perf_counter()
        shared = args.shared_memo or args.grid == "mix"
        rows.append((row, run_row(rag, gold.items, kinds, args.method, fresh=not shared)))
        print(f"{row or '(defaults)'}: {time.perf_counter() - start:.0f} s", file=sys.stderr)
        print(table(rows[-1:]).splitlines()[-1], file=sys.stderr)
    print(table(rows))
    if args.results is not None:
        write_readme(args.results / "README.md", run.command, table(rows))
    return {"revision": revision(), "argv": run.argv, "rows": [{"setting": n, **r} for n, r in rows]}
