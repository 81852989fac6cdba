"""An answer's claims: its sentences, each with the numbered moments it cites.

A generator asked to cite writes `[1]`, `[2, 3]` or `[1][3]` after what it takes from those
moments; a sentence citing nothing rests on the citations of the sentence before it (or, for the
first, on every moment given). A reply saying the moments do not cover the question (`NOT_COVERED`)
has no claims, and a sentence that only points at the evidence ("This is mentioned in moment [2].")
is no claim (`says_something`).
"""

from __future__ import annotations

import re

from ..analysis import sentences, stem, tokenize
from ..types import Claim

NOT_COVERED = "NOT COVERED"
_MARKS = re.compile(r"\s*\[(\d+(?:\s*,\s*\d+)*)\]")
_LIST_MARK = re.compile(r"\(?\d{1,2}[.)]")  # an item's number in a numbered list: no claim
_LIST_START = re.compile(r":\s+\(?\d{1,2}[.)]$")


def split_claims(text: str, moments: int) -> list[Claim]:
    """The sentences of `text` as claims citing positions 0..moments-1 (markers out of range are
    dropped: a model may invent a number)."""
    claims, previous = [], list(range(moments))
    for sentence in sentences(text):
        cited = sorted(
            {int(n) - 1 for group in _MARKS.findall(sentence) for n in group.split(",") if 0 < int(n) <= moments}
        )
        plain = _LIST_START.sub(":", _MARKS.sub("", sentence).strip())  # "Steps: 1." -> "Steps:"
        if not plain or plain.strip(".!? ") == "" or _LIST_MARK.fullmatch(plain):  # "2." of a numbered list
            continue
        previous = cited or previous
        claims.append(Claim(plain, previous))
    return claims


_TIMES = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*[–-]\s*\d{1,2}:\d{2}(?::\d{2})?)?")
_MATERIAL = r"(?:moments?|videos?|clips?|passages?|excerpts?|parts?|sections?|transcripts?)"
# which piece of the material a sentence points at: "the first moment", "moment 2", "clip #3" (no content)
_WHICH = re.compile(
    rf"\b(?:(?:first|second|third|last|next|previous|other)\s+{_MATERIAL}|{_MATERIAL}\s*(?:#|no\.?|number)?\s*\d+)\b",
    re.IGNORECASE,
)
# words that point at the material instead of saying something from it ("this is mentioned in moment 2")
POINTING = frozenset(
    stem(w)
    for w in """mention mentioned mentions mentioning say said says saying state stated states explain explained
    explains show shown shows showed describe described describes discuss discussed discusses note noted notes
    refer refers referred cover covered covers see seen find found list listed give given provide provided
    video videos clip clips moment moments transcript transcripts passage passages part parts section sections
    time times timestamp minute minutes second seconds point points mark around approximately roughly near start
    starts starting""".split()
)


def says_something(text: str) -> bool:
    """Whether a claim says anything beyond pointing at the evidence: some content word that is
    not a word for the material or for its being said or shown (time stamps out too). A claim of
    stop words alone ("Yes.", "No, not yet.") says something: it answers."""
    words = tokenize(_WHICH.sub(" ", _TIMES.sub(" ", _MARKS.sub("", text))))
    return not words or any(w not in POINTING for w in words)


def says_not_covered(text: str) -> bool:
    """The generator's reply that the moments do not answer the question."""
    return NOT_COVERED.lower() in text.lower()[: len(NOT_COVERED) + 40]


def without_markers(text: str) -> str:
    """The text without its `[n]` citation markers (what is scored against a reference answer)."""
    return re.sub(r"\s+([.,!?;:])", r"\1", _MARKS.sub("", text)).strip()


def marked(sentence: str, cited: list[int]) -> str:
    """The sentence with its `[n]` markers (positions 0.. shown 1-based) after its words, before its
    closing punctuation: "Sand it [1]."."""
    marks = "".join(f"[{i + 1}]" for i in cited)
    text = sentence.strip()
    body, end = (text[:-1], text[-1]) if text[-1:] in ".!?" else (text, "")
    return f"{body} {marks}{end}" if marks else text
