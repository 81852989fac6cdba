"""The support flag, fitted and held out: each claim's checks (`videorag.verify.support`) against a
right / wrong label, from the answers of `python -m benchmarks citations` (its file) and, with more
`--answers`, of `python -m benchmarks answers` runs on the moment benchmark (their claims labelled
against the gold items the citations file carries; a claim already seen for its question is
counted once, from the first file that has it).

Labels (`bench_citations.claim_rows`): a claim is wrong when its question has no answer in the
videos or it cites nothing of the gold window; right when it states the key fact and cites the
window; the rest (on the window, without the key fact) is left out. The claims are split in two
halves by question (a hash of its id, so a question's claims stay together): a logistic
regression over the checks is fitted on one half, its threshold chosen there (the highest F1 of
"unsupported" for the wrong claims), and scored on the other; then the halves swap. Beside it:
the uncalibrated support (the lesser of `answers` and `says`) at its old threshold 0.3, set before
any of these labels existed (so every claim is held out from it), over all claims, each half and
each file; a claim whose checks carry `best` (answers since stop 66) passes when it leads.

    python -m benchmarks support [--answers bench-results/citations.json.gz [--answers ANSWERS.json.gz …]] [--refit]
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
from videorag.verify.support import FALLBACK, FEATURES, WEIGHTS, leads

from .bench_citations import claim_rows
from .driver import OUT, ROOT, revision, write_report

NOTES = "## Beside it"


def labelled(paths: list[Path]) -> list[dict]:
    """The labelled claims with checks of every file, each (question, claim text) once, marked with
    its file (`source`): a citations run's `words` rows, an answers run's claims labelled against the
    items of the citations runs before it."""
    items: dict[str, dict] = {}
    found: dict[tuple, dict] = {}
    for path in paths:
        rows = json.loads((gzip.open if path.suffix == ".gz" else open)(path, "rt").read())["rows"]
        claims = []
        for name, row in rows.items():
            items |= {i["id"]: i for i in row.get("items", [])}
            if name.endswith(" words"):
                claims += row["claims"]
            elif "answers" in row and "claims" not in row:  # an answers run: label its claims here
                answers = [a for a in row["answers"] if a.get("id") in items]
                claims += claim_rows([items[a["id"]] for a in answers], answers)
        for c in claims:
            if c["right"] is not None and c.get("checks"):
                found.setdefault((c["id"], c["text"]), {**c, "source": path.name})
    return list(found.values())


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
    """Each half scored by the model fitted on the other, pooled."""
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
    truth = np.array(wrong)
    return {"held_out": confusion(np.array(flagged), truth, weights(order)), "thresholds": thresholds}


def uncalibrated(claims: list[dict]) -> dict:
    """The flag without a fit (support under `FALLBACK`) over all claims, each half and each file."""
    parts = {"uncalibrated": claims} | {f"uncalibrated, half {side}": [c for c in claims if half(c) == side]
                                        for side in (0, 1)}
    parts |= {f"uncalibrated, {name}": [c for c in claims if c["source"] == name]
              for name in dict.fromkeys(c["source"] for c in claims)}
    return {name: confusion(np.array([unsupported(c["checks"]) for c in part]),
                            np.array([not c["right"] for c in part]), weights(part))
            for name, part in parts.items() if part}


def unsupported(checks: dict) -> bool:
    """The shipped flag without a fit: the lesser of `answers` and `says` under `FALLBACK`, unless
    the claim leads (`videorag.verify.support.leads`; only checks that carry `best` can)."""
    return min(checks["answers"], checks["says"]) < FALLBACK and not leads(checks, FALLBACK)


def table(result: dict) -> str:
    keys = ("flagged_wrong", "flagged_right", "passed_wrong", "passed_right", "precision", "recall",
            "precision_by_question", "recall_by_question")
    lines = ["| flag | " + " | ".join(keys) + " |", "|" + "---|" * (len(keys) + 1)]
    for name, cells in result.items():
        if isinstance(cells, dict) and "precision" in cells:
            lines.append(f"| {name} | " + " | ".join(str(cells[k]) for k in keys) + " |")
    return "\n".join(lines)


def options(parser) -> None:
    parser.add_argument("--answers", type=Path, action="append",
                        help="a citations run's file (python -m benchmarks citations; default "
                             "bench-results/citations.json.gz), then answers runs' (repeatable)")
    parser.add_argument("--refit", action="store_true", help=f"fit on every labelled claim and write {WEIGHTS.name}")


def main(run) -> dict:
    files = run.args.answers or [OUT / "citations.json.gz"]
    claims = labelled(files)
    result = {"claims": len(claims), "wrong": sum(not c["right"] for c in claims),
              "questions": len({c["id"] for c in claims}), **held_out(claims)}
    model = fit(claims)
    p = model.probability(matrix(claims))
    wrong = np.array([not c["right"] for c in claims])
    result["fitted_on_all"] = confusion(p < model.threshold, wrong, weights(claims))
    result |= uncalibrated(claims)
    if run.args.refit:
        fitted_on = {k: result[k] for k in ("claims", "wrong", "held_out", "thresholds")}
        data = {**model.__dict__, "features": list(model.features), "fitted_on": fitted_on}
        WEIGHTS.write_text(json.dumps(data, indent=1) + "\n")
    text = table(result)
    print(text)
    write_report(ROOT / "results" / "support" / "README.md", "\n".join([
        "# The support flag, fitted and held out", "", "Produced by:", "", "```", run.command, "```", "",
        f"{result['claims']} labelled claims ({result['wrong']} wrong) of {result['questions']} questions from "
        + ", ".join(f"`{f.name}`" for f in files) + " (moment benchmark DEV and TEST, real-speech dev set). "
        "`held_out`: each half of the questions scored by "
        f"the model fitted on the other (thresholds {result['thresholds']}); `fitted_on_all`: the "
        f"model fitted on all of them, on its own fit data (threshold {model.threshold:.3f}); `uncalibrated`: "
        "the lesser of the judge's two probabilities under 0.3 where the claim does not lead (its checks carry the "
        "best moment's reading, `best`, in answers since stop 66), as shipped (over all claims, each half, each "
        "file). A flagged claim is one "
        "marked unsupported; `_by_question`: each question's claims weigh one in all.", "",
        text, "", f"Code: `{revision()}`.", ""]), NOTES)
    return result
