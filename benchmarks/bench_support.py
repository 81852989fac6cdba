"""The support flag, fitted and held out: each claim's checks (`videorag.verify.support`) against a
right / wrong label, from the answers of `python -m benchmarks citations` (its file).

Labels (`bench_citations.claim_rows`): a claim is wrong when its question has no answer in the
videos or it cites nothing of the gold window; right when it states the key fact and cites the
window; the rest (on the window, without the key fact) is left out. The claims are split in two
halves by question (a hash of its id, so a question's claims stay together): a logistic
regression over the checks is fitted on one half, its threshold chosen there (the highest F1 of
"unsupported" for the wrong claims), and scored on the other; then the halves swap. Beside it:
the uncalibrated support (the lesser of `answers` and `says`) at its old threshold 0.3.

    python -m benchmarks support [--answers bench-results/citations.json.gz] [--refit]
prints the confusion tables and writes results/support/README.md; `--refit` fits on every labelled
claim and writes videorag/verify/support.json (with the held-out figures).
"""
from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import numpy as np

from videorag.answerability.model import Logistic
from videorag.verify.support import FALLBACK, FEATURES, WEIGHTS

from .driver import OUT, ROOT, revision, write_report

NOTES = "## Beside it"


def labelled(path: Path) -> list[dict]:
    """The claims of the citations run's `words` rows with a label and checks."""
    opener = gzip.open if path.suffix == ".gz" else open
    rows = json.loads(opener(path, "rt").read())["rows"]
    return [c for name, row in rows.items() if name.endswith(" words")
            for c in row["claims"] if c["right"] is not None and c.get("checks")]


def half(claim: dict) -> int:
    return hashlib.sha1(claim["id"].encode()).digest()[0] % 2


def matrix(claims: list[dict]) -> np.ndarray:
    return np.array([[c["checks"][f] for f in FEATURES] for c in claims], np.float64)


def weights(claims: list[dict]) -> np.ndarray:
    """1 / the number of labelled claims of its question: each question weighs one (an answer that
    lists twenty steps would otherwise decide the fit)."""
    counts: dict[str, int] = {}
    for c in claims:
        counts[c["id"]] = counts.get(c["id"], 0) + 1
    return np.array([1.0 / counts[c["id"]] for c in claims])


def fit(claims: list[dict]) -> Logistic:
    """The logistic regression P(right), each question weighing one, and the threshold with the
    best F1 of the flag on `claims`."""
    x, y = matrix(claims), np.array([c["right"] for c in claims], int)
    model = Logistic.fit(FEATURES, x, y, weight=weights(claims))
    p = model.probability(x)
    model.threshold = max(np.unique(np.r_[p, 1.0]), key=lambda t: flag_f1(p < t, y == 0))
    return model


def flag_f1(flagged: np.ndarray, wrong: np.ndarray) -> float:
    hit = float((flagged & wrong).sum())
    return 2 * hit / (flagged.sum() + wrong.sum()) if flagged.sum() + wrong.sum() else 0.0


def confusion(flagged: np.ndarray, wrong: np.ndarray, weight: np.ndarray) -> dict:
    """The flag ("unsupported") against the labels: counts of claims, its precision and its recall of
    wrong claims, and both with each question weighing one (`weight`)."""
    cells = {"flagged_wrong": int((flagged & wrong).sum()), "flagged_right": int((flagged & ~wrong).sum()),
             "passed_wrong": int((~flagged & wrong).sum()), "passed_right": int((~flagged & ~wrong).sum())}
    hit = float(weight[flagged & wrong].sum())
    return {**cells,
            "precision": round(cells["flagged_wrong"] / max(1, int(flagged.sum())), 3),
            "recall": round(cells["flagged_wrong"] / max(1, int(wrong.sum())), 3),
            "precision_by_question": round(hit / max(1e-9, float(weight[flagged].sum())), 3),
            "recall_by_question": round(hit / max(1e-9, float(weight[wrong].sum())), 3)}


def held_out(claims: list[dict]) -> dict:
    """Each half scored by the model fitted on the other, pooled; and the uncalibrated flag."""
    flagged, wrong, thresholds, order = [], [], [], []
    for side in (0, 1):
        train = [c for c in claims if half(c) != side]
        test = [c for c in claims if half(c) == side]
        if not test or len({c["right"] for c in train}) < 2:
            continue
        model = fit(train)
        thresholds.append(round(float(model.threshold), 3))
        flagged += list(model.probability(matrix(test)) < model.threshold)
        wrong += [not c["right"] for c in test]
        order += test
    old = np.array([min(c["checks"]["answers"], c["checks"]["says"]) < FALLBACK for c in order])
    truth = np.array(wrong)
    return {"held_out": confusion(np.array(flagged), truth, weights(order)), "thresholds": thresholds,
            "uncalibrated": confusion(old, truth, weights(order))}


def table(result: dict) -> str:
    keys = ("flagged_wrong", "flagged_right", "passed_wrong", "passed_right", "precision", "recall",
            "precision_by_question", "recall_by_question")
    lines = ["| flag | " + " | ".join(keys) + " |", "|" + "---|" * (len(keys) + 1)]
    for name in ("held_out", "fitted_on_all", "uncalibrated"):
        if name in result:
            lines.append(f"| {name} | " + " | ".join(str(result[name][k]) for k in keys) + " |")
    return "\n".join(lines)


def options(parser) -> None:
    parser.add_argument("--answers", type=Path, default=OUT / "citations.json.gz",
                        help="the citations run's file (python -m benchmarks citations)")
    parser.add_argument("--refit", action="store_true", help=f"fit on every labelled claim and write {WEIGHTS.name}")


def main(run) -> dict:
    claims = labelled(run.args.answers)
    result = {"claims": len(claims), "wrong": sum(not c["right"] for c in claims), **held_out(claims)}
    model = fit(claims)
    p = model.probability(matrix(claims))
    wrong = np.array([not c["right"] for c in claims])
    result["fitted_on_all"] = confusion(p < model.threshold, wrong, weights(claims))
    if run.args.refit:
        fitted_on = {k: result[k] for k in ("claims", "wrong", "held_out", "thresholds")}
        data = {**model.__dict__, "features": list(model.features), "fitted_on": fitted_on}
        WEIGHTS.write_text(json.dumps(data, indent=1) + "\n")
    text = table(result)
    print(text)
    write_report(ROOT / "results" / "support" / "README.md", "\n".join([
        "# The support flag, fitted and held out", "", "Produced by:", "", "```", run.command, "```", "",
        f"{result['claims']} labelled claims ({result['wrong']} wrong) from `{run.args.answers.name}` "
        "(moment benchmark DEV and TEST, real-speech dev set). `held_out`: each half of the questions scored by "
        f"the model fitted on the other (thresholds {result['thresholds']}); `fitted_on_all`: the "
        f"model fitted on all of them, on its own fit data (threshold {model.threshold:.3f}); `uncalibrated`: "
        "the lesser of the judge's two probabilities under 0.3, as before the fit. A flagged claim is one "
        "marked unsupported; `_by_question`: each question's claims weigh one in all.", "",
        text, "", f"Code: `{revision()}`.", ""]), NOTES)
    return result
