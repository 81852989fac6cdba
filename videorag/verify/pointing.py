"""Citations that point: each claim cites the sentence of its cited excerpt that says it, not the
whole excerpt a generator was given.

A generator cites the numbered moments it read (`[1]` = an excerpt of several sentences). For each
claim and each excerpt it cites, the excerpt's sentences (`retrieve.steps`), and runs of adjacent
ones up to `MAX_SECONDS` (a claim that joins two or three steps), are scored by their likeness to
the claim — the embedder's cosine beside the share of the claim's words (numbers included) they
say, each sentence beyond the first paying `PAIR_COST` — and the best becomes the citation. Of
several moments a claim cites, those whose best sentence scores under `KEEP` × the best one's are
dropped: they do not say it. The answer's citations are then the sentences cited, each once,
numbered in order of first use. Where the index has word timings, a sentence spans its words
(`retrieve.steps`), so that narrowing it to the words that say a claim (`words`) loses none.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..analysis import tokenize
from ..retrieve.steps import steps
from ..types import Citation, Claim
from .words import Words
from .words import timed as words_timed

LEXICAL = 0.5  # share of the lexical overlap beside the embedder's cosine
PAIR_COST = 0.05  # what citing each sentence beyond one costs in score
MAX_SECONDS = 15.0  # a run of sentences longer than this is not a candidate
KEEP = 0.8  # a cited moment whose best sentence scores under this share of the claim's best is dropped


@dataclass(frozen=True)
class Pointed:
    """A cited sentence (or a run of adjacent ones: `parts`): its citation and what it says."""

    citation: Citation
    text: str
    parts: tuple[Pointed, ...] = ()

    def holding(self, start: float, end: float) -> Pointed:
        """What is cited of it once the citation holds [start, end] alone: the sentences of a run
        whose words lie there (itself when all do, or when it is one sentence)."""
        held = [p for p in self.parts if p.citation.start < end and p.citation.end > start]
        if not held or len(held) == len(self.parts):
            return self
        return held[0] if len(held) == 1 else _joined(held)


def point(
    claims: list[Claim], citations: list[Citation], evidence: list, embedder=None, words: Words | None = None
) -> list[Pointed]:
    """The sentences the claims cite (each once); each claim's `citations` renumbered to them;
    `words` (the index's word timings, where it has them) times the sentences."""
    choices = [[_sentences(citations[j], evidence, words) for j in claim.citations] for claim in claims]
    chosen: list[Pointed] = []
    for claim, cited in zip(claims, choices, strict=True):
        scored = [_best(claim.text, options, embedder) for options in cited]
        top = max((score for _, score in scored), default=0.0)
        picked = [p for p, score in scored if score >= KEEP * top]
        for p in picked:
            if p not in chosen:
                chosen.append(p)
        claim.citations = sorted({chosen.index(p) for p in picked})
    return chosen


def _sentences(citation: Citation, evidence: list, words: Words | None) -> list[Pointed]:
    """The options for the excerpt a citation points into: its sentences inside the cited span and
    the runs of adjacent ones (the citation itself with its excerpt's text when it holds no
    sentence)."""
    for ev in evidence:
        if (
            ev.hit.video_id == citation.video_id
            and ev.segments
            and ev.segments[0].start < citation.end
            and ev.segments[-1].end > citation.start
        ):
            segs = [s for s in ev.segments if s.start < citation.end and s.end > citation.start]
            timed = words_timed(citation.video_id, segs, words)
            found = steps([s.start for s in segs], [s.end for s in segs], [s.text for s in segs], timed=timed)
            single = [Pointed(Citation(citation.video_id, citation.path, s.start, s.end), s.text) for s in found]
            if not single:
                return [Pointed(citation, ev.transcript)]
            runs = [
                _joined(single[i:k])
                for i in range(len(single))
                for k in range(i + 2, len(single) + 1)
                if single[k - 1].citation.end - single[i].citation.start <= MAX_SECONDS
            ]
            return single + runs
    return [Pointed(citation, "")]


def _joined(sentences: list[Pointed]) -> Pointed:
    """Adjacent sentences cited as one run."""
    first, last = sentences[0].citation, sentences[-1].citation
    text = " ".join(p.text for p in sentences)
    return Pointed(Citation(first.video_id, first.path, first.start, last.end), text, tuple(sentences))


def _best(claim: str, options: list[Pointed], embedder) -> tuple[Pointed, float]:
    """The option most like the claim, and its score."""
    texts = [o.text for o in options]
    terms = set(tokenize(claim))
    score = np.array([len(terms & set(tokenize(t))) / (len(terms) or 1) for t in texts])
    if embedder is not None:
        vectors = embedder.embed([claim, *texts])
        score = (1 - LEXICAL) * (vectors[1:] @ vectors[0]) + LEXICAL * score
    score = score - PAIR_COST * np.array([max(len(o.parts) - 1, 0) for o in options])
    best = int(np.argmax(score))
    return options[best], float(score[best])
