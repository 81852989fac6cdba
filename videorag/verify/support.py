"""A claim's support as a calibrated probability: P(the claim is right), a logistic regression over
the judge's readings of the sentence it cites best — `answers`: P(the cited words answer the
question); `says`: P(they say what the claim says), 1 for a quote of them or a claim made of their
words and the question's alone; `overlap`: the share of the claim's content words (stems, numbers
included) they say — fitted on labelled claims of the benchmarks' answers (`python -m benchmarks
support --refit`; the weights, the threshold chosen on the fit data and the held-out figures in
`support.json` beside this file). Without that file —
none ships: fitted on the labelled claims there are, it did no better held out than the
uncalibrated score (results/support/) — support is the lesser of `answers` and `says` and the
threshold `FALLBACK`."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np

from ..analysis import tokenize
from ..answerability.model import Logistic
from ..config import VerifyConfig

FEATURES = ("answers", "says", "overlap")
WEIGHTS = Path(__file__).with_name("support.json")
FALLBACK = 0.3  # the uncalibrated support's threshold (tuned on DEV before the fit)
LEADS = 0.9  # a cited moment reading this share of the best moment's P(yes) or more answers as well as it


@cache
def fitted(path: Path = WEIGHTS) -> Logistic | None:
    """The fitted model (None when its file is missing)."""
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    return Logistic(**{k: v for k, v in data.items() if k != "fitted_on"} | {"features": tuple(data["features"])})


def overlap(claim: str, cited: str) -> float:
    """The share of the claim's content words the cited words say."""
    terms = set(tokenize(claim))
    return len(terms & set(tokenize(cited))) / len(terms) if terms else 0.0


def probability(checks: dict[str, float]) -> float:
    """P(the claim is right) from its checks (see the module's docstring)."""
    model = fitted()
    if model is None:
        return min(checks["answers"], checks["says"])
    return float(model.probability(np.array([checks[f] for f in model.features]))[0])


def threshold(config: VerifyConfig) -> float:
    """The support under which a claim is unsupported: the config's, else the fitted one."""
    if config.threshold is not None:
        return config.threshold
    model = fitted()
    return model.threshold if model is not None else FALLBACK


def leads(checks: dict[str, float], limit: float) -> bool:
    """Whether a claim its cited words say (`says` at `limit` or above) stands on a moment that reads
    about as well as the best the judge read for the question (`LEADS` of its P(yes), `best`, or
    more). `best` is in the checks only when the answerability stage decided that the moments answer
    the question; then the judge's low P(yes) for the best of them is no doubt about the claim:
    "Grind 20 grams of beans to the size of coarse sea salt" reads 0.04 for "how many grams of
    coffee do I need?" and is the best moment there is."""
    best = checks.get("best")
    return best is not None and checks["says"] >= limit and checks["answers"] >= LEADS * best
