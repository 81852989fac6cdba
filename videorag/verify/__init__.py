"""Verification: every claim of an answer checked against the moments it cites.

The answer is split into claims (`claims.split_claims`: sentences with their `[n]` citations; a
generator may give its claims itself). The judge (the `llm` reranker that chooses moments) reads
each cited moment — its transcript and what the screen shows — beside the claim and gives
P(supported); a claim's support is the best over the moments it cites. A claim under
`VerifyConfig.threshold` is unsupported: marked (default) or dropped. When the generator says the
moments do not cover the question, or no claim is supported, the answer abstains: it says the
videos do not cover it, cites nothing, and `abstained` is true.
"""
from __future__ import annotations

import numpy as np

from ..config import VerifyConfig
from ..types import Answer, Citation, Claim
from .claims import NOT_COVERED, says_not_covered, split_claims

__all__ = ["ABSTAINED", "NOT_COVERED", "verify", "split_claims"]

ABSTAINED = "The videos do not cover this."
SUPPORT = ("Is the claim supported by the passage? The passage comes from speech recognition and can contain "
           "misheard words; the screen text is what the video shows. Reply yes or no.")


def verify(answer: Answer, evidence: list, judge, config: VerifyConfig) -> Answer:
    """The answer with its claims (support filled in when `judge` is given), unsupported ones
    marked or dropped, or abstained."""
    claims = answer.claims or split_claims(answer.answer, len(answer.citations))
    if says_not_covered(answer.answer) or not claims or not answer.citations:   # nothing retrieved to stand on
        return abstain(answer)
    if judge is not None:
        _support(claims, answer.citations, evidence, judge)
        for claim in claims:
            claim.supported = claim.support >= config.threshold
        supported = [c for c in claims if c.supported]
        if not supported:
            return abstain(answer)
        if config.unsupported == "drop":
            claims = supported
            answer.answer = " ".join(_cited(c) for c in claims)
    answer.claims = claims
    return answer


def _cited(claim: Claim) -> str:
    """The claim with its markers before its closing punctuation ("Sand it [1].")."""
    marks = "".join(f"[{i + 1}]" for i in claim.citations)
    body, end = (claim.text[:-1], claim.text[-1]) if claim.text[-1:] in ".!?" else (claim.text, "")
    return f"{body} {marks}{end}"


def abstain(answer: Answer) -> Answer:
    answer.answer, answer.citations, answer.claims, answer.abstained = ABSTAINED, [], [], True
    return answer


def _support(claims: list[Claim], citations: list[Citation], evidence: list, judge) -> None:
    passages = [passage(c, evidence) for c in citations]
    asks = [(i, j) for i, claim in enumerate(claims) for j in claim.citations if passages[j]]
    p = judge.probabilities([(f"{SUPPORT}\n\nPassage: {passages[j]}\nClaim: {claims[i].text}", [])
                             for i, j in asks]) if asks else np.zeros(0)
    for claim in claims:
        claim.support = 0.0
    for (i, _), value in zip(asks, p):
        if not np.isnan(value):
            claims[i].support = max(claims[i].support, float(value))


def passage(citation: Citation, evidence: list) -> str:
    """What a cited moment says and shows: the evidence's transcript lines inside it (the whole
    excerpt when none falls inside) and its on-screen text."""
    for ev in evidence:
        if ev.hit.video_id != citation.video_id:
            continue
        inside = [s.text for s in ev.segments if s.start < citation.end and s.end > citation.start]
        if inside or ev.citation == citation:
            said = " ".join(inside) or ev.transcript
            return said + (f" [on screen: {ev.screen}]" if ev.screen else "")
    return ""
