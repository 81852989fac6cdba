"""Answerability: before an answer is shown, do the retrieved moments answer the question?

A stage of its own, the same for every generator (`VideoRAG.ask`, `ask_stream`, the service,
MCP). It reads signals (`signals`) and a small calibrated model (`model`, weights as data):

1. `screen`: plain retrieval's top moment gives the cheap signals; a question whose P(answerable)
   under the cheap model falls below the off-topic threshold is refused at once ("off-topic"),
   before the judge or any generator runs (milliseconds).
2. `decide`: after (judged) search, the judge's best P(yes) and the generator's own "do these
   moments hold the answer?" join them; the most informed model whose signals are all there
   decides (`full`, `judged`, else `cheap`). Under its threshold the answer abstains.

`Verdict.probability` is reported with every answer (`Answer.answerable`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..retrieve.base import Candidate
from .model import Weights, load
from .signals import Signals, cheap_signals, judged_signal

__all__ = ["Answerability", "Signals", "Verdict", "Weights", "load"]


@dataclass(frozen=True)
class Verdict:
    answerable: bool
    probability: float  # P(the moments answer the question), from the model that decided
    stage: str  # "off-topic" (refused before any model), else the model that decided:
    # "cheap" (retrieval alone), "judged", "full" (with the generator's own)
    signals: Signals


class Answerability:
    """The stage, with its weights (the package's own unless a path is given) and an optional
    decision threshold that replaces the fitted one."""

    def __init__(self, weights: Weights | str | None = None, threshold: float | None = None):
        self.weights = weights if isinstance(weights, Weights) else load(weights)
        self.threshold = threshold

    def screen(self, qc, hit, excerpt: str) -> Verdict:
        """The cheap verdict from plain retrieval's top hit (`hit`, None: nothing retrieved) and
        the text of its excerpt: off-topic, or answerable as far as retrieval can tell."""
        if hit is None:
            return Verdict(False, 0.0, "off-topic", Signals(0.0, 0.0, 0.0))
        return self.verdict(cheap_signals(qc, qc.corpus.row[hit.video_id], hit.start, hit.end, excerpt))

    def decide(self, screened: Verdict, judged: list[Candidate], covered=None) -> Verdict:
        """The verdict after search, with the judge's signal (from the steps it `judged`:
        `Ranking.judged`) and `covered()`, the generator's own P(the moments hold the answer)
        (None: it has none). An off-topic verdict stands."""
        if screened.stage == "off-topic":
            return screened
        signals = replace(screened.signals, judge=judged_signal(judged))
        if covered is not None and (value := covered()) is not None:
            signals = replace(signals, covered=float(value))
        return self.verdict(signals)

    def verdict(self, signals: Signals) -> Verdict:
        """Off-topic when the cheap model's P falls under the off-topic threshold (not for a moment
        of the multilingual embedder: `Signals.mapped`); else the verdict of the most informed
        model whose signals are all there (`full`, `judged`, `cheap`)."""
        cheap = self._verdict("cheap", signals)
        if cheap.probability < self.weights.offtopic and not signals.mapped:
            return replace(cheap, answerable=False, stage="off-topic")
        for name in ("full", "judged"):
            if signals.has(self.weights.model(name).features):
                return self._verdict(name, signals)
        return cheap

    def _verdict(self, name: str, signals: Signals) -> Verdict:
        model = self.weights.model(name)
        p = float(model.probability(signals.vector(model.features))[0])
        threshold = model.threshold if self.threshold is None else self.threshold
        return Verdict(p >= threshold, p, name, signals)
