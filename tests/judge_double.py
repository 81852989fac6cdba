"""A judge double registered like any reranker: P(yes) 0.9 for a passage holding `KeywordJudge.word`,
0.1 for the others, NaN for one holding "???"; it records every passage it read. Refer to it by
this module's name ("tests.judge_double:KeywordJudge") so every test shares one class."""
from __future__ import annotations

import numpy as np

from videorag.rerank.base import ScoringReranker


class KeywordJudge(ScoringReranker):
    name = "keyword-judge"
    word = "blush"
    read: list[str] = []

    def score(self, qc, candidates):
        KeywordJudge.read += [c.text for c in candidates]
        return np.array([np.nan if "???" in c.text else 0.9 if KeywordJudge.word in c.text else 0.1
                         for c in candidates])
