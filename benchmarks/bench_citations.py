"""Citations at the words: how long an answer's citations are and whether they hold the words that
say the answer, on the moment benchmark (DEV / TEST) and the real-speech dev set, with the citation
narrowed to the words (`generate.verify.at_words`, the default) beside the sentence it is in (the
answerable questions only: the unanswerable ones cite nothing right either way); and
each claim's support with a right / wrong label, for the support flag (`python -m benchmarks
support` fits and reports it from this run's file).

Where the answer is said: in the index's word timings inside the item's gold window, the shortest
run of words that states its key fact (`has_fact`, the test key-fact accuracy uses). A citation
holds it when it is 15 s or shorter and covers half of that run or half a second of it; when no
run states the fact (a misheard one), when it is on the gold window (`videorag.eval.answers`,
`cited_on_words`).

    python -m benchmarks citations [--limit N] [--row words|sentence ...] [--set ...] [--rescore OUT/citations.json.gz]
prints the table and writes OUT/citations.json.gz (every answer, with its items' `said`) and
results/citations/README.md; `--rescore FILE` scores a run's answers anew (no question asked).
"""
from __future__ import annotations

import gzip
import json
import shlex
import sys
from pathlib import Path

from videorag import VideoRAG
from videorag.eval.answers import by_group, has_fact, score_answers

from .bench_answers import golden_items, run_row
from .bench_moments import golden, moment_rag
from .bench_realspeech import answer_items, realspeech_rag
from .driver import ROOT, revision, write_report
from .realspeech.build import build

ROWS = {"sentence": "generate.verify.at_words=false", "words": "generate.verify.at_words=true"}
COLUMNS = ("n_answered", "cited_on_words", "cited_seconds_p50", "cited_within_5s", "cited_within_15s",
           "citation_precision", "key_fact_accuracy", "false_abstention", "abstention_recall")
NOTES = "## Beside it"


def said(rag: VideoRAG, items: list[dict]) -> list[dict]:
    """Each answerable item with `said`: where in its video the key fact is said ([start, end]),
    located in the index's word timings inside its window (None when no run of words states it)."""
    ids = {Path(r["path"]).stem: r["video_id"] for r in rag.library.index.videos(["video_id", "path"]).to_pylist()}
    out = []
    for item in items:
        span = None
        if item["answer"] is not None and item["video"] in ids:
            lo, hi = item["window"]
            span = shortest_run(rag.library.index.words(ids[item["video"]], lo - 0.5, hi + 0.5), item["answer"])
        out.append({**item, "said": span})
    return out


def shortest_run(words: list, fact: str) -> list[float] | None:
    """[start, end] of the shortest run of `words` that states `fact` (None: no run does)."""
    best = None
    for i in range(len(words)):
        for j in range(i, len(words)):
            if best is not None and words[j].end - words[i].start >= best[1] - best[0]:
                break
            if has_fact(" ".join(w.text for w in words[i : j + 1]), fact):
                best = [round(words[i].start, 3), round(words[j].end, 3)]
                break
    return best


def sets(run) -> dict[str, tuple[VideoRAG, list[dict]]]:
    """{name: (its index, its answerable and unanswerable items with `said`)}."""
    gold = golden(run)
    moments, _ = moment_rag(run, gold)
    items = [i for i in golden_items(gold.rows) if i["kind"] != "off-topic"]
    built = build(run.work / "realspeech")
    real, _ = realspeech_rag(run, built)
    limit = run.args.limit
    return {"moments": (moments, said(moments, items[:limit])),
            "realspeech": (real, said(real, [{**i, "split": "real"} for i in answer_items(built)][:limit]))}


def claim_rows(items: list[dict], answers: list[dict]) -> list[dict]:
    """Each claim of a spoken answer with its support and a label: wrong when its item has no answer
    or it cites none of the gold window; right when it states the key fact and cites the window;
    None (left out of the fit) otherwise."""
    rows = []
    for item, answer in zip(items, answers):
        if answer.get("abstained"):
            continue
        citations = answer.get("citations") or []
        for claim in answer.get("claims") or []:
            cited = [citations[n - 1] for n in claim.get("citations") or [] if 0 < n <= len(citations)]
            on = any(Path(c["path"]).stem == item["video"] and c["start"] < item["window"][1]
                     and c["end"] > item["window"][0] for c in cited) if item["answer"] is not None else False
            label = False if not on else (True if has_fact(claim["text"], item["answer"]) else None)
            rows.append({"id": item["id"], "split": item["split"], "text": claim["text"],
                         "support": claim.get("support"), "checks": claim.get("checks"), "right": label})
    return rows


def main(run) -> dict:
    if run.args.rescore:
        return rescore(run)
    rows: dict[str, dict] = {}
    for name, (rag, items) in sets(run).items():
        for label, setting in ROWS.items():
            if run.args.row and label not in run.args.row:
                continue
            rag.config = run.config(*shlex.split(setting))
            rag.judge.forget()
            asked = items if label == "words" else [i for i in items if i["answer"] is not None]
            result = run_row(rag, asked)
            rows[f"{name} {label}"] = {**scored(asked, result["answers"]), "answer_ms": result["answer_ms"]}
            print(table({k: v for k, v in rows.items() if k == f"{name} {label}"}), file=sys.stderr)
    text = table(rows)
    print(text)
    write_readme(run, text)
    return {"rows": rows, "table": text, "revision": revision()}


def scored(items: list[dict], answers: list[dict]) -> dict:
    """A row's figures (per split and over all), its answers, items and labelled claims."""
    splits = by_group(items, answers, "split")
    return {"splits": {s: _cells(r) for s, r in splits.items()}, "all": _cells(score_answers(items, answers)),
            "answers": answers, "claims": claim_rows(items, answers), "items": items}


def rescore(run) -> dict:
    """A run's answers scored anew (`--rescore FILE`)."""
    run.label = "rescored"
    saved = json.loads(gzip.open(run.args.rescore, "rt").read())
    rows = {name: {**scored(row["items"], row["answers"]), "answer_ms": row["answer_ms"]}
            for name, row in saved["rows"].items()}
    text = table(rows)
    print(text)
    write_readme(run, text)
    return {"rows": rows, "table": text, "revision": revision(), "rescored": str(run.args.rescore)}


def _cells(result: dict) -> dict:
    spoken = [r for r in result["per_item"] if r["answerable"] and not r["abstained"]]
    return {**{c: result.get(c) for c in COLUMNS if c != "n_answered"}, "n_answered": len(spoken)}


def table(rows: dict[str, dict]) -> str:
    lines = ["| set | citation | split | " + " | ".join(COLUMNS) + " |", "|" + "---|" * (len(COLUMNS) + 3)]
    for name, row in rows.items():
        where, label = name.split(" ")
        for split, cells in [*row["splits"].items(), ("all", row["all"])]:
            values = " | ".join("–" if cells[c] is None else f"{cells[c]:.2f}" if isinstance(cells[c], float)
                                else str(cells[c]) for c in COLUMNS)
            lines.append(f"| {where} | {label} | {split} | {values} |")
    return "\n".join(lines)


def write_readme(run, text: str) -> None:
    parts = ["# Citations at the words", "", "Produced by:", "", "```", run.command, "```", "",
             "Every answerable and unanswerable question of the moment benchmark (espeak how-tos and long "
             "recordings; DEV and TEST) and of the real-speech dev set asked with the defaults, the citation "
             "narrowed to the words that say its claim (`words`, the default) beside the whole sentence "
             "(`sentence`, `--set generate.verify.at_words=false`). `cited_on_words`: the mean share of an "
             "answer's checked citations that are ≤ 15 s and hold where its key fact is said (located in the "
             "index's word timings inside the gold window: half of it or half a second of it; the gold window "
             "where no run of words states it). Lengths in seconds.", "",
             text, "", f"Code: `{revision()}`. Every answer and claim: `bench-results/citations.json.gz`.", ""]
    write_report(ROOT / "results" / "citations" / "README.md", "\n".join(parts), NOTES)


def options(parser) -> None:
    parser.add_argument("--limit", type=int, default=None, help="the first N questions of each set (a quick look)")
    parser.add_argument("--rescore", type=Path, help="a run's OUT/citations.json.gz: its answers scored anew")
    parser.add_argument("--row", action="append", choices=tuple(ROWS), help="only this row (repeatable; default both)")
