"""Citations that point: each claim cites the sentence of its cited excerpt that says it, not the
whole excerpt a generator was given.

A generator cites the numbered moments it read (`[1]` = a ~60-s excerpt). For each claim and each
excerpt it cites, the excerpt's sentences (`retrieve.steps`) are scored by their similarity to the
claim — the embedder's cosine beside the share of the claim's words (numbers included) the
sentence says — and the best one becomes the citation. The answer's citations are then the
sentences cited, each once, numbered in order of first use.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..retrieve.fusion import minmax
from ..retrieve.steps import steps
from ..retrieve.text import tokenize
from ..types import Citation, Claim

LEXICAL = 0.5   # share of the lexical overlap beside the embedder's cosine (min-max over the excerpt)


@dataclass(frozen=True)
class Pointed:
    """A cited sentence: its citation and what it says."""

    citation: Citation
    text: str


def point(claims: list[Claim], citations: list[Citation], evidence: list, embedder=None) -> list[Pointed]:
    """The sentences the claims cite (each once); each claim's `citations` renumbered to them."""
    choices = [[(j, _sentences(citations[j], evidence)) for j in claim.citations] for claim in claims]
    chosen: list[Pointed] = []
    for claim, cited in zip(claims, choices):
        picked = [_best(claim.text, options, embedder) for _, options in cited]
        for p in picked:
            if p not in chosen:
                chosen.append(p)
        claim.citations = sorted({chosen.index(p) for p in picked})
    return chosen


def _sentences(citation: Citation, evidence: list) -> list[Pointed]:
    """The sentences of the evidence excerpt a citation points into, inside the cited span (the
    citation itself with its excerpt's text when it holds one sentence or none)."""
    for ev in evidence:
        if ev.hit.video_id == citation.video_id and ev.segments and \
                ev.segments[0].start < citation.end and ev.segments[-1].end > citation.start:
            segs = [s for s in ev.segments if s.start < citation.end and s.end > citation.start]
            found = steps([s.start for s in segs], [s.end for s in segs], [s.text for s in segs])
            return [Pointed(Citation(citation.video_id, citation.path, s.start, s.end), s.text) for s in found] \
                or [Pointed(citation, ev.transcript)]
    return [Pointed(citation, "")]


def _best(claim: str, options: list[Pointed], embedder) -> Pointed:
    if len(options) == 1:
        return options[0]
    terms = set(tokenize(claim))
    score = np.array([len(terms & set(tokenize(o.text))) / (len(terms) or 1) for o in options])
    if embedder is not None:
        vectors = embedder.embed([claim] + [o.text for o in options])
        score = (1 - LEXICAL) * minmax(vectors[1:] @ vectors[0]) + LEXICAL * score
    return options[int(np.argmax(score))]
