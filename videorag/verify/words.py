"""Citations at the words: a cited sentence narrowed to the words that carry its claims.

Where the index keeps word timings (`VideoIndex.words`), each cited sentence's span becomes the
run of its words that say what the claims citing it say: the claims' content words (stems,
numbers included) found among the sentence's words, weighed 1 — or `ASKED` when the question
names them too (they place the topic, the other words are the answer) — and of the runs between
two such words the one whose weight, less `PER_SECOND` for every second it lasts, is highest. The
citation then starts `LEAD` seconds before its first word (not before the sentence) and ends
`TAIL` after its last. A sentence none of whose words a claim says beyond the question's (a
paraphrase, or a claim that repeats the question), or one without word timings (subtitles, an
older index), is cited whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..analysis import tokenize
from ..types import Citation, Claim, Word

ASKED = 0.5  # weight of a claim's word the question says too
PER_SECOND = 0.1  # what a second of citation costs against a word it takes in (tuned on DEV)
LEAD = 1.0  # seconds of lead-in before the first word that says it
TAIL = 0.3  # seconds kept after the last
Words = Callable[[str, float, float], list[Word]]  # (video id, start, end) -> the words said then
_NUMBERS = {
    w: str(n)
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen".split()
    )
} | {w: str(10 * n) for n, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
_NUMBER = re.compile(r"\b(" + "|".join(_NUMBERS) + r")\b", re.IGNORECASE)


def terms(text: str) -> list[str]:
    """`tokenize`'s terms with a number word as its digits: the recogniser writes "Six" where the
    answer says "6", and the other way round."""
    return tokenize(_NUMBER.sub(lambda m: _NUMBERS[m.group(1).lower()], text))


def at_words(citations: list[Citation], claims: list[Claim], question: str, words: Words) -> list[Citation]:
    """Each citation narrowed to the words that say the claims citing it."""
    asked = set(terms(question))
    out = []
    for j, citation in enumerate(citations):
        said = [w for w in words(citation.video_id, citation.start, citation.end) if _inside(w, citation)]
        weights: dict[str, float] = {}
        for claim in claims:
            if j in claim.citations:
                weights |= {t: ASKED if t in asked else 1.0 for t in terms(claim.text)}
        out.append(_narrowed(citation, said, weights))
    return out


def said_between(narrowed: Citation, cited: Citation) -> tuple[float, float]:
    """Where the words of a citation `at_words` narrowed from `cited` are said: inside its lead-in
    and tail (up to the cited span's own edges, which they do not pass)."""
    start = narrowed.start + LEAD if narrowed.start > cited.start else narrowed.start
    end = narrowed.end - TAIL if narrowed.end < cited.end else narrowed.end
    return start, max(start, end)


def _inside(word: Word, citation: Citation) -> bool:
    middle = (word.start + word.end) / 2
    return citation.start <= middle <= citation.end


def _narrowed(citation: Citation, said: list[Word], weights: dict[str, float]) -> Citation:
    """The citation over the best run of `said` (the citation itself when no word is weighed)."""
    found_in = [set(terms(w.text)) & weights.keys() for w in said]
    hits = [i for i, found in enumerate(found_in) if found]
    if not any(weights[t] > ASKED for found in found_in for t in found):  # only the question's words: not found
        return citation
    best, run = float("-inf"), None
    for a, i in enumerate(hits):
        covered: set[str] = set()
        for k in hits[a:]:
            covered |= found_in[k]
            score = sum(weights[t] for t in covered) - PER_SECOND * (said[k].end - said[i].start)
            if score > best:
                best, run = score, (said[i], said[k])
    if run is None:
        return citation
    first, last = run
    start = max(citation.start, first.start - LEAD)
    return Citation(citation.video_id, citation.path, start, min(citation.end, last.end + TAIL))
