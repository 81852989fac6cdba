"""Tokenisation for lexical retrieval: lower-case words of any script, accents folded ("cómo" and
"como" are one word: Whisper writes them either way), each Chinese or Japanese character a word
of its own, English stop words out, Porter stems (PyStemmer's C Porter stemmer: importing NLTK's
cost seconds of a cold search). One analyser for every language: a question and the transcript
that answers it are in one language, so one stemmer on both keeps them matching (Porter takes
off the plural -s of Spanish and French words too); ASCII text is tokenised as before. And the
plain split of a text into sentences that answers are made of and checked by."""

from __future__ import annotations

import itertools
import re
import threading
import unicodedata
from functools import lru_cache

_ASCII_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_IDEOGRAPH = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # kana, CJK ideographs
_WORD = re.compile(rf"[{_IDEOGRAPH}]|[^\W_{_IDEOGRAPH}]+(?:'[^\W_{_IDEOGRAPH}]+)?")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


# a period after these ends no sentence: "Mr. John Dashwood", "e.g. salt", "John F. Kennedy"
ABBREVIATIONS = frozenset("mr mrs ms dr prof st mt vs approx fig e.g i.e".split())
_INITIAL = re.compile(r"[A-HJ-Z]\.")  # a name's initial ("F."), not "I."


def abbreviated(text: str) -> bool:
    """Whether `text` ends in an abbreviation's period (or a name's initial), not a sentence's."""
    text = text.rstrip("\"')]")
    if not text.endswith("."):
        return False
    last = text.rsplit(None, 1)[-1]
    return bool(_INITIAL.fullmatch(last)) or last[:-1].lstrip("(\"'").lower() in ABBREVIATIONS


def goes_on(before: str, after: str) -> bool:
    """Whether a sentence that seems to end with `before` goes on into `after`: an abbreviation's
    period (`abbreviated`), or a lower-case word after it ("at 6 a.m. and then")."""
    return abbreviated(before) or after[:1].islower()


def sentences(text: str) -> list[str]:
    """The sentences of `text`, cut after . ! or ? and a space (none empty; not where it
    `goes_on`)."""
    out: list[str] = []
    for piece in _SENTENCE_END.split(text.strip()):
        if not piece.strip():
            continue
        if out and goes_on(out[-1], piece):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


STOP_WORDS = frozenset(
    """
a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just let me more
most my myself no nor not now of off on once only or other our ours ourselves out over own same she
should so some such than that the their theirs them themselves then there these they this those
through to too under until up very was we were what when where which while who whom why will with
would you your yours yourself yourselves i'm it's you're that's don't we're they're i'll you'll
we'll gonna wanna okay ok yeah uh um oh like really also get got go going know
""".split()
)


ANALYZER = "unicode-words-stop-porter/pystemmer-2"  # recorded in search snapshots: a change rebuilds them
_local = threading.local()  # a PyStemmer stemmer must not be shared between threads


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        import Stemmer

        stemmer = _local.stemmer = Stemmer.Stemmer("porter")
    return stemmer.stemWord(word)


def words(text: str) -> list[str]:
    """The lower-case words of `text`, accents folded (see the module's docstring)."""
    text = text.lower()
    if text.isascii():
        return _ASCII_WORD.findall(text)
    folded = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return _WORD.findall(unicodedata.normalize("NFC", folded))


def tokenize(text: str) -> list[str]:
    return [stem(w) for w in words(text) if w not in STOP_WORDS]


def bigrams(text: str) -> list[str]:
    """Adjacent pairs of content-word stems: a cheap phrase signal for BM25."""
    terms = tokenize(text)
    return [f"{a}_{b}" for a, b in itertools.pairwise(terms)]
