"""No model: the answer is the transcript sentences that best match the question."""
from __future__ import annotations

import re

import numpy as np

from ..retrieve.fusion import minmax
from ..retrieve.text import sentences, tokenize
from ..types import Answer, Citation

_WORD_START = re.compile(r"(?<=\s)(?=\S)")  # split here: words with their spaces, joining to the text


class ExtractiveGenerator:
    name = "extractive"

    def __init__(self, config=None, embedder=None, sentences: int = 2):
        self.embedder = embedder
        self.sentences = sentences

    def generate(self, question: str, evidence: list) -> Answer:
        candidates = [(ev, seg, sentence) for ev in evidence for seg in ev.segments
                      for sentence in sentences(seg.text)]
        if not candidates:
            return Answer(question, "No transcript text was retrieved for this question.", [], self.name)
        scores = self._scores(question, [c[2] for c in candidates])
        chosen = sorted(np.argsort(-scores, kind="stable")[:self.sentences].tolist(),
                        key=lambda i: (evidence.index(candidates[i][0]), candidates[i][1].start))
        answer = " ".join(candidates[i][2].strip() for i in chosen)
        citations = []
        for i in chosen:
            ev, seg, _ = candidates[i]
            citation = Citation(ev.hit.video_id, ev.hit.path, seg.start, seg.end)
            if citation not in citations:
                citations.append(citation)
        return Answer(question, answer, citations, self.name)

    def stream(self, question: str, evidence: list):
        """Optional contract method: the answer word by word, then the Answer (what `generate`
        returns); the pieces join to its text exactly."""
        answer = self.generate(question, evidence)
        yield from _WORD_START.split(answer.answer)
        yield answer

    def _scores(self, question: str, sentences: list[str]) -> np.ndarray:
        terms = set(tokenize(question))
        overlap = np.array([len(terms & set(tokenize(s))) / (len(terms) or 1) for s in sentences], np.float32)
        if self.embedder is None:
            return overlap
        vectors = self.embedder.embed([question] + sentences)
        return 0.7 * minmax(vectors[1:] @ vectors[0]) + 0.3 * overlap
