"""Answerability: its signals collected on questions no one here wrote (WikiHowQA) and on the
moment benchmark, the model fitted, and how well it separates on data it was not fitted on.

- WikiHowQA (the VideoRAG release): `--questions` questions (a seeded sample), the transcripts of
  their relevant videos as the collection (segments of `SEGMENT_WORDS` words; times are word
  offsets). Each question twice: against the collection (answerable) and against it without the
  question's relevant videos (unanswerable — a near miss: the other videos share its topics).
  Questions whose qid hashes even fit the model; the others are held out.
- The moment benchmark: its answerable questions, the near misses (`answers/unanswerable.json`)
  and off-topic questions (`answers/offtopic.json`), each through `VideoRAG.prepare` as `ask`
  runs it (judged search with the judge installed). DEV fits, TEST is held out.

Each source weighs the same in the fit, and within a source both classes do. The signals are saved
as data (`answerability/signals.json.gz`, the calibration data), the weights in
`videorag/answerability/weights.json`:

    python -m benchmarks answerability [--questions 100]   # collect the signals, then fit
    python -m benchmarks answerability --refit              # fit from the saved signals (seconds)

Reported per held-out set: AUROC (answerable against not), the risk–coverage curve (the share of
unanswerable questions among those answered, answering the most confident first) and, at the
fitted thresholds, the abstention rates; beside them 5-fold cross-validated AUROC on the fit data.
"""
from __future__ import annotations

import gzip
import json
import math
import random
import sys
import zlib
from collections import Counter
from functools import partial
from pathlib import Path

import numpy as np

from videorag.answerability import Answerability, Signals, Weights
from videorag.answerability.model import Logistic
from videorag.answerability.signals import CHEAP, FULL, JUDGED
from videorag.eval.answers import auroc, risk_coverage
from videorag.retrieve.base import Ranking

HERE = Path(__file__).resolve().parent
SIGNALS = HERE / "answerability" / "signals.json.gz"
SEGMENT_WORDS = 40         # WikiHowQA transcripts cut into segments of this many words (an ASR segment's size)
OFFTOPIC_QUANTILE = 0.02   # the off-topic threshold: this share of the fit's answerable questions fall under it
FIT = {"fit", "dev"}


def options(parser) -> None:
    parser.add_argument("--questions", type=int, default=100, help="WikiHowQA questions sampled (default 100)")
    parser.add_argument("--refit", action="store_true", help="fit from the saved signals only")
    parser.add_argument("--only", choices=("wikihow", "moments"), help="collect one source (the other's saved rows kept)")
    parser.add_argument("--answers", type=Path, help="the moment rows from `benchmarks answers --collect`'s results")


def main(run) -> dict:
    rows = json.loads(gzip.open(SIGNALS, "rt").read()) if SIGNALS.exists() else []
    if not run.args.refit:
        fresh = []
        if run.args.only in (None, "wikihow"):
            fresh += wikihow_rows(run, run.args.questions)
        if run.args.only in (None, "moments"):
            fresh += moment_rows(run)
        sources = {r["source"] for r in fresh}
        rows = [r for r in rows if r["source"] not in sources] + fresh
        SIGNALS.parent.mkdir(exist_ok=True)
        with gzip.open(SIGNALS, "wt") as f:
            json.dump(rows, f)
    weights, report = fit(rows)
    weights.fitted_on = {"rows": len(rows), "command": run.command, "report": report["summary"]}
    weights.save()
    print(json.dumps(report["summary"], indent=1))
    return report


# -- collecting ---------------------------------------------------------------------------------
class Without:
    """A method whose ranking leaves some videos out (scored under every other)."""

    def __init__(self, inner, rows: list[int]):
        self.inner, self.rows, self.name = inner, rows, inner.name

    def rank(self, qc) -> Ranking:
        ranking = self.inner.rank(qc)
        if not self.rows:
            return ranking
        videos = ranking.videos.astype(np.float64).copy()
        videos[self.rows] = videos.min() - 1.0
        return Ranking(videos, ranking.moments)


def wikihow_rows(run, n: int) -> list[dict]:
    from videorag.embed import create_embedder
    from videorag.generate import create_generator
    from videorag.eval.cli import bench_dir
    from videorag.eval.datasets import load_transcripts, load_wikihow_qa
    from videorag.eval.transcripts import TranscriptCorpusConfig, transcript_corpus
    from videorag.methods import create_method
    from videorag.retrieve.searcher import Searcher
    from tqdm import tqdm

    config = run.config()
    transcripts = load_transcripts(bench_dir() / "transcripts.jsonl.gz")
    items = [i for i in load_wikihow_qa(bench_dir() / "wikihow_qa.json") if any(v in transcripts for v in i.relevant)]
    chosen = random.Random(0).sample(items, min(n, len(items)))
    ids = sorted({v for i in chosen for v in i.relevant if v in transcripts})
    embedder = create_embedder(config.embed, "onnx")
    corpus = transcript_corpus({v: transcripts[v] for v in ids}, embedder, TranscriptCorpusConfig(
        segment_words=SEGMENT_WORDS), cache_dir=run.work / "answerability", show_progress=True)
    searcher, inner = Searcher(corpus, embedder), create_method(config.search.method, config.search)
    generator = create_generator(config.generate)
    stage = Answerability(write_neutral(run.work))
    rows = []
    for item in tqdm(chosen, desc="wikihow", file=sys.stderr):
        split = "fit" if zlib.crc32(item.qid.encode()) % 2 == 0 else "held-out"
        for answerable in (True, False):
            left_out = [] if answerable else [corpus.row[v] for v in item.relevant if v in corpus.row]
            row = _signals(stage, searcher, Without(inner, left_out), item.question, config, generator)
            rows.append({"source": "wikihow", "id": item.qid, "split": split, "kind": "answerable" if answerable
                         else "near-miss", "answerable": answerable, **row,
                         "top_relevant": row["evidence"] in item.relevant})
    return rows


def _signals(stage: Answerability, searcher, method, question: str, config, generator) -> dict:
    """The signals `ask` reads for `question`, read by the path `VideoRAG.prepare` takes
    (`answerability.read.assess`): plain retrieval's top moment, judged search's evidence, the
    generator's own coverage question (`stage` refuses nothing: every signal is read)."""
    from videorag.answerability.read import assess
    from videorag.methods.evidence import EvidenceRequest
    from videorag.methods.judged import Judged

    request = EvidenceRequest(question, searcher, config, Judged(method, config.search))
    read = assess(stage, request, method, partial(generator.covered, question))
    return {**read.verdict.signals.to_dict(), "top": read.top.video_id if read.top else None,
            "evidence": read.evidence[0].hit.video_id if read.evidence else None}


def moment_rows(run) -> list[dict]:
    from .bench_answers import golden_items
    from .bench_moments import golden, moment_rag

    if run.args.answers:
        return answers_rows(run.args.answers)
    gold = golden(run)
    rag, _ = moment_rag(run, gold)
    rag.config = run.config(f"generate.verify.weights={write_neutral(run.work)}")
    offtopic = json.loads((HERE / "answers" / "offtopic.json").read_text())
    items = golden_items(gold.rows) + [{"id": f"offtopic-{split}-{n}", "question": q["question"], "answer": None,
                                        "split": split, "offtopic": True}
                                       for split in offtopic for n, q in enumerate(offtopic[split], 1)]
    rows = []
    for item in items:
        verdict = rag.prepare(item["question"]).verdict
        kind = "off-topic" if item.get("offtopic") else "answerable" if item["answer"] is not None else "near-miss"
        rows.append({"source": "moments", "id": item["id"], "split": item["split"], "kind": kind,
                     "answerable": item["answer"] is not None, **verdict.signals.to_dict()})
        print(f"{kind:10s} {rows[-1]}", file=sys.stderr)
    return rows


def answers_rows(path: Path) -> list[dict]:
    """The moment rows from `python -m benchmarks answers --collect`'s answers (its first row)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    rows = json.loads(opener(path, "rt").read())["rows"]
    answers = next(iter(rows.values()))["answers"]
    return [{"source": "moments", "id": a["id"], "split": a["split"],
             "kind": a["kind"] if a["kind"] == "off-topic" else "answerable" if a["answerable_item"] else "near-miss",
             "answerable": a["answerable_item"], **a["signals"]} for a in answers if a.get("signals")]


def write_neutral(work: Path) -> Path:
    """Weights that refuse nothing (every signal is read), for collecting."""
    path = work / "answerability" / "collect-weights.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return Weights(*(_zero(names) for names in (CHEAP, JUDGED, FULL)), -1.0).save(path)


def _zero(names: tuple[str, ...]) -> Logistic:
    """A model that finds every question answerable (P = 0.5, threshold 0)."""
    return Logistic(names, [0.0] * len(names), [1.0] * len(names), [0.0] * len(names), 0.0, 0.0)


# -- fitting and reporting ------------------------------------------------------------------------
def matrix(rows: list[dict], names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    kept = [r for r in rows if all(r.get(n) is not None for n in names)]
    return (np.array([[r[n] for n in names] for r in kept], np.float64).reshape(-1, len(names)),
            np.array([r["answerable"] for r in kept], bool))


def sample_weights(rows: list[dict]) -> np.ndarray:
    """Each source the same total weight, and within it each class; mean 1 (so that the
    regularisation means what it does without weights)."""
    groups: dict[tuple, int] = {}
    for r in rows:
        groups[(r["source"], r["answerable"])] = groups.get((r["source"], r["answerable"]), 0) + 1
    w = np.array([1.0 / groups[(r["source"], r["answerable"])] for r in rows])
    return w * len(w) / w.sum()


def fit_model(rows: list[dict], names: tuple[str, ...]) -> Logistic:
    kept = [r for r in rows if all(r.get(n) is not None for n in names)]
    x, y = matrix(kept, names)
    model = Logistic.fit(names, x, y, weight=sample_weights(kept))
    model.threshold = youden(model.probability(x), y, sample_weights(kept))
    return model


def youden(p: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """The threshold with the best (weighted) true-positive minus false-positive rate."""
    best, at = -1.0, 0.5
    for t in np.unique(p):
        tpr = w[y & (p >= t)].sum() / max(w[y].sum(), 1e-12)
        fpr = w[~y & (p >= t)].sum() / max(w[~y].sum(), 1e-12)
        if tpr - fpr > best:
            best, at = tpr - fpr, float(t)
    return round(at, 4)


def fit(rows: list[dict]) -> tuple[Weights, dict]:
    train = [r for r in rows if r["split"] in FIT]
    cheap, judged, full = (fit_model(train, names) for names in (CHEAP, JUDGED, FULL))
    answerable, _ = matrix([r for r in train if r["answerable"]], CHEAP)
    offtopic = min(float(np.quantile(cheap.probability(answerable), OFFTOPIC_QUANTILE)), cheap.threshold)
    cheap.threshold = round(offtopic, 4)   # retrieval alone refuses what is off-topic; near misses need a judge
    weights = Weights(cheap, judged, full, round(offtopic, 4))
    report = evaluate(weights, rows)
    report["cross_validated"] = {name: cross_validated(train, names) for name, names in
                                 (("cheap", CHEAP), ("judged", JUDGED), ("full", FULL))}
    report["summary"] = _summary(report)
    return weights, report


def evaluate(weights: Weights, rows: list[dict]) -> dict:
    """Per source and split: AUROC of the verdicts' P(answerable), risk–coverage, and abstention
    as `ask` decides it (`Answerability.verdict`: off-topic first, then the most informed model)."""
    stage = Answerability(weights)
    out = {}
    for key in sorted({(r["source"], r["split"]) for r in rows}):
        part = [r for r in rows if (r["source"], r["split"]) == key]
        verdicts = [stage.verdict(signals_of(r)) for r in part]
        p = np.array([v.probability for v in verdicts])
        y = np.array([r["answerable"] for r in part], bool)
        answered = np.array([v.answerable for v in verdicts], bool)
        cell = {"n": len(part), "answerable": int(y.sum()), "auroc": auroc(y, p),
                "abstains_unanswerable": _rate(~answered[~y]), "false_abstention": _rate(~answered[y]),
                "risk_coverage": risk_coverage(y, p), "decided_by": dict(Counter(v.stage for v in verdicts))}
        for kind in ("near-miss", "off-topic"):
            chosen = np.array([r["kind"] == kind for r in part], bool)
            if chosen.any():
                cell[f"abstains_{kind}"] = _rate(~answered[chosen])
        if key[0] == "wikihow":
            found = np.array([r["answerable"] and r.get("top_relevant") for r in part], bool)
            cell["auroc_top_relevant"] = auroc(found[found | ~y], p[found | ~y])
        out["/".join(key)] = cell
    return out


def signals_of(row: dict) -> Signals:
    return Signals(*(math.nan if row.get(n) is None else float(row[n]) for n in FULL))


def cross_validated(rows: list[dict], names: tuple[str, ...], folds: int = 5) -> float | None:
    """AUROC of the model fitted on 4/5 of the fit questions, scored on the fifth (by question)."""
    kept = [r for r in rows if all(r.get(n) is not None for n in names)]
    fold = np.array([zlib.crc32(f"{r['source']}:{r['id']}".encode()) % folds for r in kept])
    p = np.zeros(len(kept))
    for k in range(folds):
        train = [r for r, f in zip(kept, fold) if f != k]
        model = fit_model(train, names)
        x, _ = matrix([r for r, f in zip(kept, fold) if f == k], names)
        p[fold == k] = model.probability(x) if len(x) else []
    return auroc(np.array([r["answerable"] for r in kept], bool), p)


def _rate(flags: np.ndarray) -> float | None:
    return round(float(flags.mean()), 3) if len(flags) else None


def _summary(report: dict) -> dict:
    keep = ("n", "auroc", "auroc_top_relevant", "abstains_unanswerable", "abstains_near-miss", "abstains_off-topic",
            "false_abstention")
    return {**{key: {k: cell[k] for k in keep if k in cell} for key, cell in report.items() if "/" in key},
            "cross_validated_auroc": report["cross_validated"]}
