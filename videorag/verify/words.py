"""Citations at the words: a cited sentence narrowed to the words that carry its claims.

Where the index keeps word timings (`VideoIndex.words`), each cited sentence's span becomes the
run of its words that say what the claims citing it say: the claims' content words (stems,
numbers included) found among the sentence's words, weighed 1 — or `ASKED` when the question
names them too (they place the topic, the other words are the answer) — and of the runs between
two such words the one whose weight, less `PER_SECOND` for every second it lasts, is highest. The
citation then starts `LEAD` seconds before its first word and ends `TAIL` after its last (the
sentence's last where the words after the run say nothing: "Try again."), cutting no word: the
lead-in stops at another sentence's words and after a word it would start inside, the tail at
the next word. A sentence none of whose words a claim says beyond the question's
(a paraphrase, or a claim that repeats the question) is cited whole, from lead-in to tail; one
without word timings (subtitles, an older index) is cited as it is.

A sentence is timed by its words (`timed`: each segment's words, the recogniser's times, for
`retrieve.steps`), not by a share of its segment's time, which can end it before its last word.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..analysis import tokenize
from ..types import Citation, Claim, Segment, Word

ASKED = 0.5  # weight of a claim's word the question says too
PER_SECOND = 0.1  # what a second of citation costs against a word it takes in (tuned on DEV)
LEAD = 1.0  # seconds of lead-in before the first word that says it
TAIL = 0.3  # seconds kept after the last
NEAR = 1.0  # seconds between a segment's start and its first word's, at most
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


def at_words(
    citations: list[Citation], claims: list[Claim], question: str, words: Words
) -> list[tuple[Citation, tuple[float, float]]]:
    """Each citation narrowed to the words that say the claims citing it, with where those words
    are said (the citation's own span where it is not narrowed)."""
    asked = set(terms(question))
    out = []
    for j, citation in enumerate(citations):
        around = words(citation.video_id, citation.start - LEAD, citation.end + TAIL)
        weights: dict[str, float] = {}
        for claim in claims:
            if j in claim.citations:
                weights |= {t: ASKED if t in asked else 1.0 for t in terms(claim.text)}
        out.append(_narrowed(citation, around, weights))
    return out


def timed(video_id: str, segments: list[Segment], words: Words | None) -> list[list[Word]] | None:
    """Each segment's words timed by the recogniser: the run of recognised words, said within `NEAR`
    seconds of its start, that spells its text (none where no run does). None without words."""
    if words is None or not segments:
        return None
    said = words(video_id, segments[0].start - NEAR, segments[-1].end + NEAR)
    out = []
    for segment in segments:
        own = segment.text.split()
        found = (_spelled(said, i, own) for i, w in enumerate(said) if abs(w.start - segment.start) <= NEAR)
        out.append(next((run for run in found if run is not None), []))
    return out


def _spelled(said: list[Word], at: int, own: list[str]) -> list[Word] | None:
    """`own` (a segment's words) timed by the recognised words from `at` on, those the recogniser
    split joined ("eye" "-opening"); None where they do not spell it."""
    out = []
    for word in own:
        text, first = "", at
        while at < len(said) and len(text) < len(word):
            text, at = text + said[at].text.strip(), at + 1
        if text != word:
            return None
        out.append(Word(said[first].start, said[at - 1].end, word))
    return out


def _inside(word: Word, citation: Citation) -> bool:
    middle = (word.start + word.end) / 2
    return citation.start <= middle <= citation.end


def _narrowed(
    citation: Citation, around: list[Word], weights: dict[str, float]
) -> tuple[Citation, tuple[float, float]]:
    """The citation over the best run of its words (all of them when no word is weighed; itself
    without word timings), and where that run is said."""
    said = [w for w in around if _inside(w, citation)]
    if not said:
        return citation, (citation.start, citation.end)
    first, last = _best_run(said, weights) or (said[0], said[-1])
    lead = first.start - LEAD
    before = [w.end for w in around if w.end <= first.start and (w.start < lead or not _inside(w, citation))]
    after = min((w.start for w in around if w.start >= last.end), default=last.end + TAIL)
    start, end = max([lead, 0.0, *before]), min(after, last.end + TAIL)
    return Citation(citation.video_id, citation.path, start, end), (first.start, last.end)


def _best_run(said: list[Word], weights: dict[str, float]) -> tuple[Word, Word] | None:
    """The first and last word of the run of `said` whose weighed words, less `PER_SECOND` a
    second, weigh most, to the sentence's end when no word after it says anything (None when only
    the question's words, or none, are found)."""
    found_in = [set(terms(w.text)) & weights.keys() for w in said]
    hits = [i for i, found in enumerate(found_in) if found]
    if not any(weights[t] > ASKED for found in found_in for t in found):  # only the question's words: not found
        return None
    best, run = float("-inf"), None
    for a, i in enumerate(hits):
        covered: set[str] = set()
        for k in hits[a:]:
            covered |= found_in[k]
            score = sum(weights[t] for t in covered) - PER_SECOND * (said[k].end - said[i].start)
            if score > best:
                best, run = score, (i, k)
    if run is None:
        return None
    i, k = run
    if not any(terms(w.text) for w in said[k + 1 :]):  # what is left of the sentence says nothing ("… again."): kept
        k = len(said) - 1
    return said[i], said[k]
