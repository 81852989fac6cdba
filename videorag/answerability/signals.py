"""The signals answerability is decided from, each a number that means the same in any collection.

- `relevance`: the best cosine similarity to the question of the transcript segments in the top
  moment of plain retrieval (what marks a *weak match*);
- `coverage`: the share of the question's content words, weighted by how rare they are in the
  collection (BM25's IDF), that the top moment's excerpt says;
- `known`: the same share over the whole collection's vocabulary (what is said, and what the
  screen shows where the index has captions): words no video ever says or shows ("capital",
  "France" in a collection of how-tos) make a question off-topic;
- `judge`: the judge's best P(yes), "does this step answer the question", over the steps judged
  search read (needs the judge; `nan` without it);
- across languages (a question in French, the top moment in Spanish) `coverage` and `known` cannot
  be read: they are `nan`, and the models take them at their mean (`model.Logistic`), so the
  decision rests on the others; an English question is read against the English translation a
  moment of other speech carries (ingest's `translate`);
- `covered`: the generator's own P(yes) to "do these moments contain the answer?", asked with the
  prompt it answers from (a chat model's `Generator.covered`; its answer then reuses the prompt
  already evaluated; `nan` for generators without it).

The first three cost a plain search (milliseconds): they decide off-topic questions before any
model runs — except where the top moment is in a video embedded by the multilingual model
(`mapped`): its relevance is e5's cosine mapped onto MiniLM's scale (`embed.e5.calibrated`), which
the fit never saw, and a misheard transcript lowers it further, so the judge and the generator
decide those. All of them come from the query context that search and evidence share.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..analysis import tokenize
from ..retrieve.base import Candidate

CHEAP = ("relevance", "coverage", "known")
LEXICAL = ("coverage", "known")  # read from the question's words: unreadable across languages
JUDGED = (*CHEAP, "judge")
FULL = (*JUDGED, "covered")


@dataclass(frozen=True)
class Signals:
    relevance: float
    coverage: float
    known: float
    judge: float = math.nan
    covered: float = math.nan
    mapped: bool = False  # the top moment was scored by the multilingual embedder (`embed.e5`), on a mapped scale

    def has(self, names: tuple[str, ...]) -> bool:
        """Whether the signals `names` were measured (`coverage` and `known` count as measured:
        `nan` there means unreadable, taken at the mean)."""
        return not any(math.isnan(getattr(self, n)) for n in names if n not in LEXICAL)

    def vector(self, names: tuple[str, ...]) -> np.ndarray:
        return np.array([getattr(self, n) for n in names], np.float64)

    def to_dict(self) -> dict:
        return {n: None if math.isnan(getattr(self, n)) else round(float(getattr(self, n)), 4) for n in FULL}


def cheap_signals(qc, video: int, start: float, end: float, excerpt: str) -> Signals:
    """The signals of plain retrieval's top moment (`video` row, its span, the excerpt's text:
    what is said and what the screen shows meanwhile)."""
    mapped = qc.corpus.is_multilingual(video)
    if _across_languages(qc, video, excerpt):  # the question's words cannot be found in the video's
        return Signals(_relevance(qc, video, start, end), math.nan, math.nan, mapped=mapped)
    terms = list(dict.fromkeys(tokenize(qc.query.text)))
    bm25 = qc.corpus.segments.bm25
    weights = np.array([_idf(bm25, t) for t in terms], np.float64)
    said = set(tokenize(excerpt))
    shown = qc.corpus.captions.bm25.vocab if qc.corpus.captions is not None else {}
    return Signals(
        relevance=_relevance(qc, video, start, end),
        coverage=_share(weights, [t in said for t in terms]),
        known=_share(weights, [t in bm25.vocab or t in shown for t in terms]),
        mapped=mapped,
    )


def _across_languages(qc, video: int, excerpt: str) -> bool:
    """Whether the question is asked in another language than `video` speaks (only asked of a
    library with videos in other languages than English) — unless it is asked in English and the
    excerpt carries its speech translated into English at ingest."""
    if qc.corpus.languages is None:
        return False
    from ..languages import IN_ENGLISH, text_language

    asked = text_language(qc.query.text)
    return asked != qc.corpus.language_of(video) and not (asked == "en" and IN_ENGLISH in excerpt)


def judged_signal(judged: list[Candidate]) -> float:
    """The judge's best P(yes) over the steps judged search read (`Ranking.judged`; nan: none)."""
    return max((step.score for step in judged), default=math.nan)


def _idf(bm25, term: str) -> float:
    """A term's IDF in the segment level; a term no segment says gets the largest one possible."""
    col = bm25.vocab.get(term)
    return float(bm25.idf[col]) if col is not None else math.log1p((bm25.size + 0.5) / 0.5)


def _share(weights: np.ndarray, present: list[bool]) -> float:
    """The weighted share of the terms present (1.0 for a question with no content word: nothing
    in it can be missing)."""
    total = float(weights.sum())
    return float(weights[np.array(present, bool)].sum()) / total if total > 0 else 1.0


def _relevance(qc, video: int, start: float, end: float) -> float:
    level = qc.corpus.segments
    lo, hi = level.span(video)
    if lo == hi:
        return 0.0
    inside = np.flatnonzero((level.starts[lo:hi] < max(end, start + 1e-3)) & (level.ends[lo:hi] > start))
    scores = qc.dense_span(level, lo, hi)
    return float(scores[inside].max() if len(inside) else scores.max())
