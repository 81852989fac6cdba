"""A chapter's title: the phrase of its own words that best stands for it (KeyBERT's idea).

Candidates are runs of one to three words said in the chapter (within a clause) that neither
start nor end with a stop word. A run weighs as much as its least specific content word (tf-idf
over the video's segments: said often in the chapter, in few other segments; words said
everywhere, in any language, weigh little), times the square root of their number: a title is as
specific as its weakest word ("tube firmly" is not). The heaviest are kept and embedded by the
same embedder as the video's segments; the title is the one closest to the chapter's own vector,
its weight (over the best candidate's) counting half as much. Tuned on the chapter benchmark's
DEV recordings (results/chapters/).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable

import numpy as np

from ..analysis import STOP_WORDS, stem, words
from ..types import Segment

KEPT = 12  # candidates per chapter embedded
_CLAUSE = re.compile(r"[,.;:!?()]")  # a title is never read across these
LONGEST = 3  # words in a title
SAID = 0.5  # weight of how much of the chapter a candidate's words are (its tf-idf over the best's)


def titles(chapters: list[list[Segment]], centres: np.ndarray, embed: Callable[[list[str]], np.ndarray]) -> list[str]:
    """A title per chapter (its segments; `centres`: each chapter's unit mean vector)."""
    rare = _rarity([s for chapter in chapters for s in chapter])
    shortlists = [_candidates(chapter, rare) for chapter in chapters]
    flat = [c for shortlist in shortlists for c in shortlist]
    if not flat:
        return ["" for _ in chapters]
    vectors = embed(flat)
    vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    result, at = [], 0
    for i, shortlist in enumerate(shortlists):
        rows = vectors[at : at + len(shortlist)]
        at += len(shortlist)
        if not shortlist:
            result.append("")
            continue
        weights = np.array(list(shortlist.values()))
        score = rows @ centres[i] + SAID * weights / max(weights.max(), 1e-12)
        best = list(shortlist)[int(np.argmax(score))]
        result.append(best[:1].upper() + best[1:])
    return result


def _rarity(segments: list[Segment]) -> dict[str, float]:
    """Each word stem's inverse segment frequency over the video."""
    seen = Counter(term for s in segments for term in {stem(w) for w in words(s.text)})
    return {term: math.log((1 + len(segments)) / (1 + n)) for term, n in seen.items()}


def _candidates(chapter: list[Segment], rare: dict[str, float]) -> dict[str, float]:
    """The chapter's `KEPT` phrases of most weight (see the module's docstring)."""
    said: Counter[str] = Counter()
    for segment in chapter:
        said.update(stem(w) for w in words(segment.text))
    weight: dict[str, float] = {}
    for clause in (c for segment in chapter for c in _CLAUSE.split(segment.text)):
        tokens = words(clause)
        for n in range(1, LONGEST + 1):
            for i in range(len(tokens) - n + 1):
                run = tokens[i : i + n]
                if run[0] in STOP_WORDS or run[-1] in STOP_WORDS or any(w.isdigit() for w in run):
                    continue
                stems = [stem(w) for w in run if w not in STOP_WORDS]
                weakest = min(said[s] * rare.get(s, 0.0) for s in stems)
                weight[" ".join(run)] = weakest * math.sqrt(len(stems))
    return {phrase: weight[phrase] for phrase in sorted(weight, key=lambda phrase: -weight[phrase])[:KEPT]}
