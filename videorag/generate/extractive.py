"""No model: the answer is the whole sentences of the evidence that answer the question, each
cited by its own span.

With the judge, the sentences are the steps it found to answer (best first by P(yes): the best, and
a second whose P(yes) is at least half the best's). Without it, each sentence of the excerpts
scores by its similarity to the question (the embedder's, beside the share of the question's words
it says); a sentence that says nothing beyond the question's own words (an introduction: "Let's
make a clean cup of coffee") counts half. The sentences come in time order, each followed by its
`[n]` marker.
"""

from __future__ import annotations

import re

import numpy as np

from ..analysis import tokenize
from ..embed import embed_queries
from ..retrieve.base import Candidate
from ..retrieve.fusion import minmax
from ..retrieve.steps import steps
from ..types import Answer, Citation, Evidence
from ..verify.claims import marked

_WORD_START = re.compile(r"(?<=\s)(?=\S)")  # split here: words with their spaces, joining to the text
NO_TEXT = "No transcript text was retrieved for this question."


class ExtractiveGenerator:
    name = "extractive"

    def __init__(self, config=None, embedder=None, sentences: int = 2, resources=None):
        self.embedder = embedder
        self.sentences = sentences

    def generate(self, question: str, evidence: list) -> Answer:
        chosen = self._judged(evidence) or self._scored(question, evidence)
        if not chosen:
            return Answer(question, NO_TEXT, [], self.name)
        chosen.sort(key=lambda pair: (evidence.index(pair[0]), pair[1].start))
        citations = [Citation(ev.hit.video_id, ev.hit.path, s.start, s.end) for ev, s in chosen]
        text = " ".join(marked(s.text, [i]) for i, (_, s) in enumerate(chosen))
        return Answer(question, text, citations, self.name)

    def stream(self, question: str, evidence: list):
        """Optional contract method: the answer word by word, then the Answer (what `generate`
        returns); the pieces join to its text exactly."""
        answer = self.generate(question, evidence)
        yield from _WORD_START.split(answer.answer)
        yield answer

    def _judged(self, evidence: list) -> list[tuple[Evidence, Candidate]]:
        """The judge's best steps: the best, then others at least half as likely to answer."""
        found = sorted(((ev, s) for ev in evidence for s in ev.steps), key=lambda pair: -pair[1].score)
        if not found:
            return []
        best = found[0][1].score
        return [pair for pair in found if pair[1].score >= best / 2][: self.sentences]

    def _scored(self, question: str, evidence: list) -> list[tuple[Evidence, Candidate]]:
        found = [(ev, s) for ev in evidence for s in sentences_of(ev)]
        if not found:
            return []
        scores = self._scores(question, [s.text for _, s in found])
        return [found[int(np.argmax(scores))]]

    def _scores(self, question: str, texts: list[str]) -> np.ndarray:
        terms = set(tokenize(question))
        said = [set(tokenize(t)) for t in texts]
        overlap = np.array([len(terms & s) / (len(terms) or 1) for s in said])
        if self.embedder is not None:
            asked = embed_queries(self.embedder, [question])[0]  # a query prefix where the model has one
            overlap = 0.7 * minmax(self.embedder.embed(texts) @ asked) + 0.3 * overlap
        says_more = np.array([bool(s - terms) for s in said])
        return np.where(says_more, overlap, overlap / 2)


def sentences_of(ev) -> list[Candidate]:
    """The excerpt's sentences (steps) with their spans."""
    segs = ev.segments
    found = steps([s.start for s in segs], [s.end for s in segs], [s.text for s in segs]) if segs else []
    return [Candidate(-1, "step", s.start, s.end, 0.0, "excerpt", s.text) for s in found]
