"""Answerability: before an answer is shown, do the retrieved moments answer the question?

A stage of its own, the same for every generator (`VideoRAG.ask`, `ask_stream`, the service,
MCP). It reads signals (`signals`) and a small calibrated model (`model`, weights as data):

1. `screen`: plain retrieval's top moment gives the cheap signals; a question whose P(answerable)
   under the cheap model falls below the off-topic threshold is refused at once ("off-topic"),
   before the judge or any generator runs (milliseconds).
2. `decide`: after (judged) search, the judge's best P(yes) joins them in the judged model; without
   a judge the cheap model decides. Under its threshold the answer abstains ("not covered").

`Verdict.probability` is reported with every answer (`Answer.answerable`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .model import Weights, load
from .signals import CHEAP, JUDGED, Signals, cheap_signals, judged_signal

__all__ = ["Answerability", "Verdict", "Signals", "Weights", "load"]


@dataclass(frozen=True)
class Verdict:
    answerable: bool
    probability: float     # P(the moments answer the question), from the model that decided
    stage: str             # "off-topic" (refused before any model), "retrieval" (no judge) or "judged"
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
        signals = cheap_signals(qc, qc.corpus.row[hit.video_id], hit.start, hit.end, excerpt)
        model = self.weights.cheap
        p = float(model.probability(signals.vector(CHEAP))[0])
        if p < self.weights.offtopic:
            return Verdict(False, p, "off-topic", signals)
        return Verdict(p >= self._threshold(model.threshold), p, "retrieval", signals)

    def decide(self, screened: Verdict, qc) -> Verdict:
        """The verdict after search: the judged model when the judge read steps for this query
        (`qc.judged`), else the screen's."""
        if screened.stage == "off-topic":
            return screened
        judge = judged_signal(qc)
        if math.isnan(judge):
            return screened
        signals = Signals(screened.signals.relevance, screened.signals.coverage, screened.signals.known, judge)
        model = self.weights.judged
        p = float(model.probability(signals.vector(JUDGED))[0])
        return Verdict(p >= self._threshold(model.threshold), p, "judged", signals)

    def _threshold(self, fitted: float) -> float:
        return fitted if self.threshold is None else self.threshold
