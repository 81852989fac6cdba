"""The calibrated model: logistic regressions over the signals, their weights stored as data
(`weights.json` beside this file), refit by `python -m benchmarks answerability --refit`.

Three models: `cheap` reads the signals of plain retrieval alone (decides off-topic questions
before any model runs, and every question when no judge runs); `judged` adds the judge's P(yes);
`full` the generator's own P(the moments hold the answer) too. Each has
the decision threshold chosen on its fit data (the P(answerable) under which `ask` abstains), and
`cheap` an off-topic threshold (under it the question is refused before the judge or generator
runs)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ConfigError

WEIGHTS = Path(__file__).with_name("weights.json")


@dataclass
class Logistic:
    features: tuple[str, ...]
    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float
    threshold: float = 0.5  # P(answerable) under which the answer abstains

    def probability(self, x: np.ndarray) -> np.ndarray:
        """P(answerable) for rows of `x` (columns in `features` order); a `nan` feature (unreadable)
        is taken at its mean."""
        z = np.nan_to_num((np.atleast_2d(x) - np.asarray(self.mean)) / np.asarray(self.scale), nan=0.0)
        return 1.0 / (1.0 + np.exp(-(z @ np.asarray(self.coef) + self.intercept)))

    @classmethod
    def fit(
        cls, features: tuple[str, ...], x: np.ndarray, y: np.ndarray, c: float = 1.0, weight: np.ndarray | None = None
    ) -> Logistic:
        """Standardised features, L2-regularised logistic regression (`weight`: per row)."""
        from ..registry import require

        LogisticRegression = require("sklearn.linear_model", "eval").LogisticRegression  # fitting only

        mean, scale = x.mean(0), np.maximum(x.std(0), 0.05)  # a constant feature stays harmless
        lr = LogisticRegression(C=c).fit((x - mean) / scale, y, sample_weight=weight)
        return cls(tuple(features), mean.tolist(), scale.tolist(), lr.coef_[0].tolist(), float(lr.intercept_[0]))


MODELS = ("cheap", "judged", "full")


@dataclass
class Weights:
    cheap: Logistic
    judged: Logistic
    full: Logistic
    offtopic: float  # cheap P(answerable) under which a question is off-topic
    fitted_on: dict = field(default_factory=dict)  # what the weights were fitted on, and how well they did

    def model(self, name: str) -> Logistic:
        return getattr(self, name)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Weights:
        cheap, judged, full = (Logistic(**{**data[k], "features": tuple(data[k]["features"])}) for k in MODELS)
        return cls(cheap, judged, full, float(data["offtopic"]), data.get("fitted_on", {}))

    def save(self, path: Path = WEIGHTS) -> Path:
        path.write_text(json.dumps(self.to_dict(), indent=1) + "\n")
        return path


def load(path: str | Path | None = None) -> Weights:
    path = Path(path or WEIGHTS)
    try:
        return Weights.from_dict(json.loads(path.read_text()))
    except (OSError, KeyError, TypeError, ValueError) as exc:
        raise ConfigError(
            f"cannot read the answerability weights {path} ({exc})",
            "refit them: python -m benchmarks answerability --refit",
        ) from exc
