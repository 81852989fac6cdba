"""Steps: a video's transcript as the sentences its speaker says, the unit a judge reads and a
citation points at.

Speech recognition cuts speech where it likes: mid-sentence, or a chapter's heading glued to the
first step after it ("Chapter 2, a hole in the drywall. This one is about the size of a
doorknob…"). A step is one sentence: it ends at end punctuation (not an abbreviation's, "Mr.", nor
one before a lower-case word) or at a pause (at least `pause` seconds between two segments), and
one longer than `max_words` is cut into pieces. A heading is then a step of its own, which names
the topic without answering anything. A step's times are those of its words where the recogniser
timed them (one time per word of the segment's text), else its segments', shared out by characters
where a segment holds several sentences (the share can end a sentence before its last word does).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..analysis import goes_on

_SENTENCE = re.compile(r"\S.*?(?:[.!?]+[\"')\]]*(?=\s|$)|$)")  # a sentence, or the unfinished rest


@dataclass(frozen=True)
class Step:
    start: float
    end: float
    text: str


def steps(starts, ends, texts, pause: float = 0.8, max_words: int = 40, timed=None) -> list[Step]:
    """The sentences of one video's segments (given in time order), as steps; `timed`, where
    given, holds each segment's recognised words (`types.Word`) for their times."""
    out: list[Step] = []
    words: list[str] = []
    first = 0.0
    for i, (start, end, text) in enumerate(zip(starts, ends, texts, strict=True)):
        if words and start - ends[i - 1] >= pause:
            out.append(Step(first, float(ends[i - 1]), " ".join(words)))
            words = []
        for word, a, b, closes in _words(float(start), float(end), text, timed[i] if timed else ()):
            if not words:
                first = a
            words.append(word)
            if closes or len(words) >= max_words:
                out.append(Step(first, b, " ".join(words)))
                words = []
    if words:
        out.append(Step(first, float(ends[-1]), " ".join(words)))
    return out


def _words(start: float, end: float, text: str, timed) -> Iterator[tuple[str, float, float, bool]]:
    """(word, its time span, whether a sentence ends with it) for one segment's text: the
    recogniser's times when `timed` holds one word for each of the text's, else the segment's
    time shared out by characters."""
    k = 0
    exact = len(timed) == len(text.split())
    for piece, (a, b), closes in _pieces(start, end, text):
        said = piece.split()
        for j, word in enumerate(said):
            share = (a + (b - a) * j / len(said), a + (b - a) * (j + 1) / len(said))
            yield word, *((timed[k].start, timed[k].end) if exact else share), closes and j == len(said) - 1
            k += 1


def _pieces(start: float, end: float, text: str):
    """(sentence piece, its time span, whether it ends a sentence) for one segment's text,
    the segment's time shared out by characters."""
    parts = [m.group() for m in _SENTENCE.finditer(text.strip())]
    total = max(sum(len(p) for p in parts), 1)
    at = 0
    for j, part in enumerate(parts):
        a = start + (end - start) * at / total
        at += len(part)
        yield (
            part,
            (a, start + (end - start) * at / total),
            _closes(part, parts[j + 1] if j < len(parts) - 1 else None),
        )


def _closes(part: str, following: str | None) -> bool:
    """Whether a sentence piece ends its sentence: end punctuation (or another piece after it),
    unless the sentence `goes_on` ("Mr. John", "at 6 a.m. and then")."""
    ends = following is not None or part.rstrip("\"')]").endswith((".", "!", "?"))
    return ends and not goes_on(part, following or "")


def covering(
    step_starts: np.ndarray, step_ends: np.ndarray, starts: np.ndarray, ends: np.ndarray, scores: np.ndarray
) -> np.ndarray:
    """Each step's best score among the spans (`starts`, `ends`, `scores`) overlapping it; 0 where none does."""
    out = np.zeros(len(step_starts))
    for i, (a, b) in enumerate(zip(step_starts, step_ends, strict=True)):
        hit = (starts < b) & (a < ends)
        if hit.any():
            out[i] = float(scores[hit].max())
    return out
