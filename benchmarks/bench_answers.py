"""Answers on the moment benchmark: key facts, citations, claim support, abstention; one row per
setting.

The golden answer set is the moment benchmark's questions (both splits; their key facts in
`answers/facts.json`, the answering lines as references) plus questions no video answers
(`answers/unanswerable.json`), over the index `bench_moments.py` builds (cached). Each row is a
`--set`-style list of settings on a fresh `Config`; `ask` runs as a user runs it (the judge and
the verifier on when installed). Columns per split (dev / test): key-fact accuracy, citation
precision, claim support rate, abstention precision / recall, false abstention; over all
questions ROUGE-L and the time to the first streamed piece and to the whole answer (p50).

Usage:
    python benchmarks/bench_answers.py [--row "generate.backend=llamacpp" ...] [--out bench-results]
        [--ingest ingest.captioner=ocr] [--limit N]
Writes OUT/answers.json (every answer) and prints the table.
"""
from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_moments import index_videos, setting  # noqa: E402
from moments.build import build  # noqa: E402
from moments.corpus import SPLITS, recordings  # noqa: E402

from videorag import Config, VideoRAG  # noqa: E402
from videorag.eval.answers import by_group, golden, score_answers  # noqa: E402
from videorag.eval.commands import answer_all  # noqa: E402

HERE = ROOT / "benchmarks" / "answers"
ROWS = ["generate.backend=extractive", "generate.backend=llamacpp"]
COLUMNS = ("key_fact_accuracy", "citation_precision", "claim_support_rate", "abstention_precision",
           "abstention_recall", "false_abstention")


def references() -> dict[str, str]:
    """Question id -> the text of the lines that answer it."""
    out = {}
    for rec in recordings():
        parts = {p.key: p for p in rec.parts}
        for n, q in enumerate(rec.questions, 1):
            out[f"{rec.slug}#{n}"] = " ".join(parts[q.part].lines[i] for i in q.lines)
    return out


def golden_items(rows: dict[str, list[dict]]) -> list[dict]:
    """Both splits' answer items from the moment benchmark's golden rows."""
    facts = json.loads((HERE / "facts.json").read_text())
    unanswerable = json.loads((HERE / "unanswerable.json").read_text())
    refs = references()
    return [{**item, "split": split} for split in SPLITS
            for item in golden(rows[split], facts, unanswerable[split], refs)]


def run_row(rag: VideoRAG, items: list[dict]) -> dict:
    answers, first, whole = answer_all(rag, items, None)
    threshold = rag.config.generate.verify.threshold
    result = score_answers(items, answers, threshold)
    result["by_split"] = by_group(items, answers, "split", threshold)
    result["first_ms"], result["answer_ms"] = (round(1000 * sorted(x)[len(x) // 2]) for x in (first, whole))
    result["answers"] = answers
    return result


def table(rows: list[tuple[str, dict]]) -> str:
    head = ("| setting | " + " | ".join(f"{s}: " + " / ".join(COLUMNS) for s in SPLITS)
            + " | ROUGE-L | first piece / answer p50 ms |\n|" + "---|" * (len(SPLITS) + 3))
    lines = [head]
    for name, r in rows:
        cells = [" / ".join(_cell(r["by_split"].get(s, {}).get(c)) for c in COLUMNS)
                 for s in SPLITS]
        rouge = "–" if r.get("rouge_l") is None else f"{r['rouge_l']:.1f}"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {rouge} | {r['first_ms']} / {r['answer_ms']} |")
    return "\n".join(lines)


def _cell(value) -> str:
    return "–" if value is None else f"{value:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--row", action="append", default=[], help="a row of settings (default: the two generators)")
    parser.add_argument("--ingest", action="append", default=[], metavar="KEY=VALUE",
                        help="an ingest setting (e.g. ingest.captioner=ocr): its own index, as bench_moments --set")
    parser.add_argument("--limit", type=int, default=None, help="the first N questions of each split (a quick look)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench-results")
    args = parser.parse_args()
    work = args.out / "moments"
    moments = {split: [json.loads(line) for line in path.open()] for split, path in build(work / "videos", work).items()}
    items = [it for split in SPLITS for it in [i for i in golden_items(moments) if i["split"] == split][:args.limit]]
    base = Config()
    for item in args.ingest:
        setting(base, item)
    rag = VideoRAG(work / "-".join(["index", *args.ingest]), base)
    keep = {v for rows in moments.values() for r in rows for v in r["relevant"]}
    print(f"index: {index_videos(rag, work / 'videos', keep)}", file=sys.stderr)
    rows = []
    for row in args.row or ROWS:
        config = Config()
        for item in [*args.ingest, *shlex.split(row)]:
            setting(config, item)
        rag.config, rag._generator = config, None   # the row's generator, built anew
        rag.judge._memo.clear()                      # the row pays for its own judgements (latency)
        rows.append((row, run_row(rag, items)))
        print(table(rows[-1:]), file=sys.stderr)
    text = table(rows)
    print(text)
    out = args.out / ("answers-" + "-".join(args.ingest) + ".json" if args.ingest else "answers.json")
    out.write_text(json.dumps({"rows": dict(rows), "table": text}, indent=1))
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
