"""Answers on the moment benchmark: key facts, citations, claim support, abstention; one row per
setting.

The golden answer set is the moment benchmark's questions (both splits; their key facts in
`answers/facts.json`, the answering lines as references) plus questions no video answers: near
misses on the videos' own topics (`answers/unanswerable.json`) and off-topic ones
(`answers/offtopic.json`), over the index `moments` builds (cached; `--set ingest.…` gives an
index of its own). Each row is a list of settings (as `--set` takes them) applied to a fresh
`Config` after the run's own `--set` items; `ask` runs as a user runs it (the judge and the
verifier on when installed). Columns per split (dev / test): key-fact accuracy, citation
precision, claim support rate, abstention precision / recall, false abstention; over all
questions ROUGE-L and the time to the first streamed piece and to the whole answer (p50).

    python -m benchmarks answers [--row "generate.backend=llamacpp" ...] [--set ingest.captioner=ocr]
        [--limit N] [--collect]
prints the table and writes OUT/answers.json (every answer with the answerability signals it was
decided on; OUT/answers-HASH.json with --set). `--collect`: nothing is refused (neutral
answerability weights), so every answer is written and every signal read; the table is then
scored as the shipped weights would have decided (`rescored`: an answer they refuse counts as an
abstention, its latency as measured) — the moment rows of `python -m benchmarks answerability
--answers OUT/answers.json` come from this run.
"""
from __future__ import annotations

import gzip
import json
import shlex
import sys
from pathlib import Path

from videorag import VideoRAG
from videorag.eval.answers import by_group, golden as golden_answers, score_answers
from videorag.eval.commands import answer_all
from videorag.verify.support import threshold

from .bench_moments import golden, moment_rag
from .moments.corpus import SPLITS, recordings

HERE = Path(__file__).resolve().parent / "answers"
ROWS = ["generate.backend=extractive", "generate.backend=llamacpp"]
COLUMNS = ("key_fact_accuracy", "citation_precision", "cited_seconds_p50", "claim_support_rate",
           "abstention_precision", "abstention_recall", "false_abstention", "answerability_auroc")


def references() -> dict[str, str]:
    """Question id -> the text of the lines that answer it."""
    out = {}
    for rec in recordings():
        parts = {p.key: p for p in rec.parts}
        for n, q in enumerate(rec.questions, 1):
            out[f"{rec.slug}#{n}"] = " ".join(parts[q.part].lines[i] for i in q.lines)
    return out


def golden_items(rows: dict[str, list[dict]]) -> list[dict]:
    """Both splits' answer items from the moment benchmark's golden rows, then the off-topic
    questions (kind "off-topic")."""
    facts = json.loads((HERE / "facts.json").read_text())
    unanswerable = json.loads((HERE / "unanswerable.json").read_text())
    offtopic = json.loads((HERE / "offtopic.json").read_text())
    refs = references()
    return [{**item, "split": split} for split in SPLITS
            for item in golden_answers(rows[split], facts, unanswerable[split], refs)] + \
        [{"id": f"offtopic-{split}-{n}", "question": q["question"], "video": None, "window": None, "answer": None,
          "reference": None, "split": split, "kind": "off-topic"}
         for split in SPLITS for n, q in enumerate(offtopic[split], 1)]


def run_row(rag: VideoRAG, items: list[dict], weights=None) -> dict:
    """One row: every item asked; scored as asked, or as `weights` decide (`rescored`)."""
    answers, first, whole = answer_all(rag, items, None)
    answers = [{**a, "id": i["id"], "split": i["split"], "kind": i["kind"], "answerable_item": i["answer"] is not None}
               for i, a in zip(items, answers)]
    decided = rescored(answers, weights) if weights is not None else answers
    result = scored(items, decided, threshold(rag.config.generate.verify))
    result["first_ms"], result["answer_ms"] = (round(1000 * sorted(x)[len(x) // 2]) for x in (first, whole))
    result["answers"] = decided
    if weights is not None:
        result["collected"] = answers   # as written, nothing refused: `--rescore` decides them anew
    return result


def rescore(run, every: list[dict]) -> dict:
    """A `--collect` run's answers scored as the shipped weights decide them now; latencies as
    measured then (a refused question would have cost less)."""
    from videorag.answerability import load

    run.label = "rescored"   # OUT/answers-rescored.json: the collected run's file stays
    opener = gzip.open if str(run.args.rescore).endswith(".gz") else open
    saved, weights, rows = json.loads(opener(run.args.rescore, "rt").read()), load(), []
    for name, row in saved["rows"].items():
        answers = row.get("collected") or row["answers"]
        items = [next(i for i in every if i["id"] == a["id"]) for a in answers]
        result = scored(items, rescored(answers, weights), threshold(run.config().generate.verify))
        rows.append((name, {**result, "first_ms": row["first_ms"], "answer_ms": row["answer_ms"],
                            "answers": rescored(answers, weights)}))
    text = table(rows)
    print(text)
    return {"rows": dict(rows), "table": text, "rescored": str(run.args.rescore)}


def scored(items: list[dict], answers: list[dict], threshold: float) -> dict:
    result = score_answers(items, answers, threshold)
    result["by_split"] = by_group(items, answers, "split", threshold)
    result["by_kind"] = by_group(items, answers, "kind", threshold)
    return result


def rescored(answers: list[dict], weights) -> list[dict]:
    """The answers as the answerability stage with `weights` decides them from their signals:
    one it refuses becomes an abstention (no citations, no claims)."""
    from videorag.answerability import Answerability, Signals
    from videorag.verify import ABSTAINED

    stage, out = Answerability(weights), []
    for a in answers:
        if not a.get("signals"):
            out.append(a)
            continue
        verdict = stage.verdict(Signals(*(float("nan") if a["signals"].get(n) is None else a["signals"][n]
                                          for n in ("relevance", "coverage", "known", "judge", "covered"))))
        refused = {"answer": ABSTAINED, "citations": [], "claims": [], "abstained": True} if not verdict.answerable else {}
        out.append({**a, **refused, "answerable": round(verdict.probability, 3), "decided_by": verdict.stage})
    return out


def table(rows: list[tuple[str, dict]]) -> str:
    head = ("| setting | " + " | ".join(f"{s}: " + " / ".join(COLUMNS) for s in SPLITS)
            + " | ROUGE-L | first piece / answer p50 ms |\n|" + "---|" * (len(SPLITS) + 3))
    lines = [head]
    for name, r in rows:
        cells = [" / ".join(_cell(r["by_split"].get(s, {}).get(c)) for c in COLUMNS)
                 for s in SPLITS]
        rouge = "–" if r.get("rouge_l") is None else f"{r['rouge_l']:.1f}"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {rouge} | {r['first_ms']} / {r['answer_ms']} |")
        offtopic = r.get("by_kind", {}).get("off-topic", {}).get("abstention_recall")
        if offtopic is not None:
            lines.append(f"| ↳ off-topic questions abstained | {_cell(offtopic)} | | | |")
    return "\n".join(lines)


def _cell(value) -> str:
    return "–" if value is None else f"{value:.2f}" if value <= 1 else f"{value:.1f}"


def options(parser) -> None:
    parser.add_argument("--row", action="append", default=[], help="a row of settings (default: the two generators)")
    parser.add_argument("--limit", type=int, default=None, help="the first N questions of each split (a quick look)")
    parser.add_argument("--collect", action="store_true", help="refuse nothing; score as the shipped weights decide")
    parser.add_argument("--rescore", type=Path, help="a --collect run's results: score them as the shipped weights "
                                                     "decide now (no model runs)")


def main(run) -> dict:
    gold = golden(run)
    every = golden_items(gold.rows)
    if run.args.rescore:
        return rescore(run, every)
    items = [it for split in SPLITS for it in [i for i in every if i["split"] == split][:run.args.limit]]
    rag, _ = moment_rag(run, gold)
    rows, neutral, weights = [], [], None
    if run.args.collect:
        from videorag.answerability import load

        from .bench_answerability import write_neutral

        neutral, weights = [f"generate.verify.weights={write_neutral(run.work)}"], load()
    for row in run.args.row or ROWS:
        rag.config = run.config(*shlex.split(row), *neutral)               # the row's generator, made anew
        rag.judge.forget()                                              # the row pays for its own judgements
        rows.append((row, run_row(rag, items, weights)))
        print(table(rows[-1:]), file=sys.stderr)
    text = table(rows)
    print(text)
    return {"rows": dict(rows), "table": text}
