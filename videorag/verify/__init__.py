"""Verification: every claim of an answer points at the sentence that says it, and is checked
against it.

The answer is split into claims (`claims.split_claims`: sentences with their `[n]` citations; a
generator may give its claims itself); a sentence that only points at the evidence ("This is
mentioned at 0:18 [2].") is dropped, not flagged (`claims.says_something`). Each claim's
citations are narrowed to the sentence of the cited excerpt that says it (`pointing`), and the
answer is rewritten with its markers after the words they support, numbered in order; where the
index has word timings, each cited sentence is narrowed to the words that say its claims
(`words`; of two adjacent sentences cited together, the one those words lie in is what is then
checked). The judge (the `llm` reranker that chooses moments) then reads each cited sentence — and
what the screen shows — and gives a claim's checks: P(the cited words answer the question) and,
for a claim that is neither a quote of them nor made of their words alone (every content word of
it said there but for the question's own, a negation in both or neither), P(they say what the
claim says), beside the share of its words they say;
its support is P(the claim is right) fitted on them (`support`). A quote is not supported by
being a quote. A claim under the fitted threshold (or `VerifyConfig.threshold`) is unsupported:
marked (default) or dropped — unless the answerability stage decided that the moments answer the
question and the claim's cited words, saying it, read about as well as the best moment the judge
read (`support.leads`; its P(yes) is then in the checks as `best`). Its `flag` says why — its cited words
do not say it (`not_said`), or they say it but may not answer the question (`off_question`: a true
sentence beside the point, another moment answering better).
When the generator says the moments do not cover the question, or no claim is left, the answer
abstains: it says the videos do not cover it, cites nothing, and `abstained` is true. When no
claim is supported, it abstains too unless the answerability stage already decided that the
moments answer (`decided`): that calibrated decision is not overruled by an uncalibrated one; its
claims stay marked.
"""

from __future__ import annotations

import logging

import numpy as np

from ..config import VerifyConfig
from ..languages import NOT_COVERED as NOT_COVERED_SAID
from ..languages import not_covered
from ..llm.yesno import EVIDENCE, prompt, supports
from ..types import Answer, Claim
from .claims import NOT_COVERED, marked, says_not_covered, says_something, split_claims
from .pointing import Pointed, point
from .support import leads, overlap, probability, threshold
from .words import Words, at_words, terms

__all__ = ["ABSTAINED", "NOT_COVERED", "split_claims", "verify"]

log = logging.getLogger(__name__)
ABSTAINED = NOT_COVERED_SAID["en"]  # in English; in the question's language: `languages.not_covered`
_Ask = tuple[str, list[bytes]]  # a user message for the judge and its JPEGs


def verify(
    answer: Answer,
    evidence: list,
    judge,
    config: VerifyConfig,
    embedder=None,
    decided: bool = False,
    words: Words | None = None,
) -> Answer:
    """The answer with its claims pointing at their sentences — at the words that say them where
    `words` gives word timings — (support filled in when `judge` is given), unsupported ones
    marked or dropped, or abstained (`decided`: the answerability stage found the moments answer
    the question)."""
    claims = answer.claims or split_claims(answer.answer, len(answer.citations))
    if says_not_covered(answer.answer) or not claims or not answer.citations:  # nothing retrieved to stand on
        return abstain(answer)
    if not all(said := [says_something(c.text) for c in claims]):  # a sentence that only points is dropped
        claims = _renumbered([c for c, kept in zip(claims, said, strict=True) if kept], answer)
        if not claims:
            return abstain(answer)
    cited = point(claims, answer.citations, evidence, embedder, words)
    answer.citations = [p.citation for p in cited]
    if words is not None:  # cited at the words; checked against the sentence that says them
        narrowed = at_words(answer.citations, claims, answer.question, words)
        answer.citations = [c for c, _ in narrowed]
        cited = [p.holding(*said) for p, (_, said) in zip(cited, narrowed, strict=True)]
    if judge is not None:
        _support(answer.question, claims, cited, _screens(cited, evidence), judge)
        limit = threshold(config)
        best = _best_reading(evidence, claims) if decided else None
        for claim in claims:
            if best is not None and claim.checks is not None:  # decided: a claim may lead (`support.leads`)
                claim.checks["best"] = best
            assert claim.support is not None, "`_support` gives every claim its support"
            claim.supported = claim.support >= limit or (claim.checks is not None and leads(claim.checks, limit))
            claim.flag = None if claim.supported else _flag(claim.checks, limit)
        if not decided and not any(c.supported for c in claims):
            return abstain(answer)
        if config.unsupported == "drop":
            claims = _renumbered([c for c in claims if c.supported], answer)
            if not claims:
                return abstain(answer)
    answer.claims = claims
    answer.answer = " ".join(marked(c.text, c.citations) for c in claims)
    return answer


def _renumbered(claims: list[Claim], answer: Answer) -> list[Claim]:
    """The kept claims citing only the citations they use, renumbered in order."""
    used = sorted({i for c in claims for i in c.citations})
    answer.citations = [answer.citations[i] for i in used]
    for claim in claims:
        claim.citations = [used.index(i) for i in claim.citations]
    return claims


def abstain(answer: Answer) -> Answer:
    """The answer made an abstention, said in the question's language."""
    said = not_covered(answer.question)
    answer.answer, answer.citations, answer.claims, answer.abstained = said, [], [], True
    return answer


def _support(question: str, claims: list[Claim], cited: list[Pointed], screens: list[str], judge) -> None:
    """Each claim's support: the best, over the sentences it cites, of P(they answer the question)
    — the judge's own question, remembered from judged search; for a run of sentences, the best of
    its sentences' — and, unless the claim quotes the sentence or is made of its words
    (`_restates`), P(it says what the claim says)."""
    shown = [f" [on screen: {screen}]" if screen else "" for screen in screens]
    passages = [p.text + on for p, on in zip(cited, shown, strict=True)]
    # a run of sentences answers the question when one of them does: each is read alone
    read = {j: [q.text + shown[j] for q in cited[j].parts or (cited[j],)] for j in range(len(cited)) if cited[j].text}
    answers: dict[str, _Ask] = {
        t: (prompt(question, EVIDENCE["text"].format(text=t)), []) for texts in read.values() for t in texts
    }
    says: dict[tuple[int, int], _Ask] = {
        (i, j): (supports(passages[j], claims[i].text), [])
        for i, claim in enumerate(claims)
        for j in claim.citations
        if j in read and not (_quotes(cited[j].text, claim.text) or _restates(cited[j].text, claim.text, question))
    }
    asks = list(answers.values()) + list(says.values())
    if asks:
        said = "1 claim" if len(claims) == 1 else f"{len(claims)} claims"
        log.info("checking %s against what they cite…", said, extra={"stage": True})
    p = judge.probabilities(asks) if asks else np.zeros(0)
    by_text = dict(zip(answers, p[: len(answers)], strict=True))
    answer_p = {j: max(_value(by_text[t]) for t in texts) for j, texts in read.items()}
    says_p = dict(zip(says, p[len(answers) :], strict=True))
    for i, claim in enumerate(claims):
        rows = [
            {"answers": answer_p[j], "says": _value(says_p.get((i, j), 1.0))}
            | {"overlap": overlap(claim.text, cited[j].text)}
            for j in claim.citations
            if j in answer_p
        ]
        claim.checks = max(rows, key=lambda r: min(r["answers"], r["says"]), default=None)
        claim.support = probability(claim.checks) if claim.checks is not None else 0.0


def _best_reading(evidence: list, claims: list[Claim]) -> float:
    """The best P(answers the question) among the moments the judge read for it: the judged steps
    of the evidence and the sentences the claims cite."""
    steps = [float(s.score) for e in evidence for s in e.steps if not np.isnan(s.score)]
    cited = [c.checks["answers"] for c in claims if c.checks is not None]
    return max(steps + cited, default=0.0)


def _flag(checks: dict[str, float] | None, limit: float) -> str:
    """Why a claim is unsupported (`types.FLAGS`): its cited words do not say it, or they say it
    (a quote, its words, or the judge's `says` at the threshold or above) and the lesser check was
    whether they answer the question."""
    return "not_said" if checks is None or checks["says"] < limit else "off_question"


def _value(p: float) -> float:
    return 0.0 if np.isnan(p) else float(p)


def _quotes(sentence: str, claim: str) -> bool:
    """Whether the claim is the sentence's own words (the extractive generator's claims)."""

    def words(text: str) -> str:
        return " ".join("".join(ch for ch in text.lower() if ch.isalnum() or ch.isspace()).split())

    return bool(words(claim)) and words(claim) in words(sentence)


_NEGATIONS = frozenset("not no never nothing none nor neither without cannot".split())


def _restates(sentence: str, claim: str, question: str = "") -> bool:
    """Whether the claim is made of the sentence's words: every content word of it (stems, numbers
    as digits) said there, but for the question's own (a claim framed by the question: "To find the
    leak, pump air into the tube"; whether the sentence answers the question is the other check),
    and a negation in both or in neither ("do not use soap" is not made of "use soap")."""

    def negated(text: str) -> bool:
        return any(w in _NEGATIONS or w.endswith("n't") for w in text.lower().replace("’", "'").split())

    claimed = set(terms(claim)) - set(terms(question))
    return bool(claimed) and claimed <= set(terms(sentence)) and negated(claim) == negated(sentence)


def _screens(cited: list[Pointed], evidence: list) -> list[str]:
    """What the screen shows during each cited sentence: its excerpt's screen text, when any."""
    out = []
    for p in cited:
        ev = next(
            (
                e
                for e in evidence
                if e.hit.video_id == p.citation.video_id
                and e.screen
                and e.segments
                and e.segments[0].start <= p.citation.start <= e.segments[-1].end
            ),
            None,
        )
        out.append(ev.screen if ev is not None else "")
    return out
