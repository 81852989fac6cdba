"""Numbers and spellings made comparable for key facts (`eval.answers.has_fact`).

`normalise` makes "Sixty seconds" and "60 seconds" one text: lowercase; number words to digits
(up to 999,999, "a hundred" = 100, decimals "five point five" = 5.5, "point seven five" = 0.75,
"one and a half" = 1.5); "%" to "percent", "°" to "degree"; a few British spellings and unit
abbreviations to one form ("tyre" = "tire", "metre" = "meter", "cm" = "centimeter"); the other
punctuation dropped (a decimal point between digits kept); whitespace collapsed.
"""

from __future__ import annotations

import re

_UNITS = {
    w: n
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve "
        "thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {w: 10 * n for n, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
_DIGITS = {w: str(n) for w, n in _UNITS.items() if n < 10}
_SPELLING = {
    "tyre": "tire",
    "tyres": "tires",
    "colour": "color",
    "colours": "colors",
    "colouring": "coloring",
    "grey": "gray",
    "cm": "centimeter",
    "mm": "millimeter",
    "ml": "milliliter",
    "km": "kilometer",
    "kg": "kilogram",
    "min": "minute",
    "mins": "minutes",
    "hr": "hour",
    "hrs": "hours",
    "sec": "second",
    "secs": "seconds",
}
STOP_WORDS = frozenset(
    "a an the of to in on at for with and or is are was were be been it its this that these those as by from "
    "into onto your you my i me we our do does did how what which when where why who whom should can could "
    "would will shall about just so if then there their they them he she his her".split()
)


# -- normalisation ------------------------------------------------------------------------------
def _spell(word: str) -> str:
    if word in _SPELLING:
        return _SPELLING[word]
    return re.sub(r"tre(s?)$", r"ter\1", word) if len(word) > 4 else word


def _tokens(text: str) -> list[str]:
    text = text.lower().replace("%", " percent ").replace("°", " degree ")
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)  # 3,200 -> 3200
    text = re.sub(r"['’]", "", text)  # plumber's -> plumbers
    return [_spell(w) for w in re.findall(r"\d+(?:\.\d+)?|[^\W\d_]+", text)]


def _below_100(words: list[str], i: int) -> tuple[int | None, int]:
    """The value of 'seven', 'forty' or 'forty two' at words[i] and the index after it; (None, i)."""
    if i < len(words) and words[i] in _TENS:
        value, i = _TENS[words[i]], i + 1
        if i < len(words) and 0 < _UNITS.get(words[i], 0) < 10:
            return value + _UNITS[words[i]], i + 1
        return value, i
    if i < len(words) and words[i] in _UNITS:
        return _UNITS[words[i]], i + 1
    return None, i


def _plus(words: list[str], i: int, value: int, part) -> tuple[int, int]:
    """`value` plus what `part` reads at words[i] after an optional 'and' ('hundred [and] five')."""
    j = i + 1 if i < len(words) and words[i] == "and" else i
    rest, end = part(words, j)
    return (value + rest, end) if rest is not None else (value, i)


def _scaled(words: list[str], i: int, scale: str, factor: int, below) -> tuple[int | None, int]:
    """'[a | below] scale [and] rest', e.g. 'a hundred and five', 'three thousand two hundred'."""
    if words[i : i + 2] == ["a", scale]:
        value, j = 1, i + 1
    else:
        value, j = below(words, i)
        if value is None:
            return None, i
    if j < len(words) and words[j] == scale and value > 0:
        return _plus(words, j + 1, value * factor, below)
    return value, j


def _below_1000(words: list[str], i: int) -> tuple[int | None, int]:
    return _scaled(words, i, "hundred", 100, _below_100)


def _integer(words: list[str], i: int) -> tuple[int | None, int]:
    return _scaled(words, i, "thousand", 1000, _below_1000)


def _decimals(words: list[str], i: int) -> tuple[str, int]:
    """The digits after 'point': 'seven five' -> '75', 'ten' -> '10'; ('', i) when none."""
    digits = ""
    while i < len(words) and words[i] in _DIGITS:
        digits, i = digits + _DIGITS[words[i]], i + 1
    if digits:
        return digits, i
    value, j = _below_100(words, i)
    return (str(value), j) if value is not None else ("", i)


def _number(words: list[str], i: int) -> tuple[str | None, int]:
    """The number spelled out at words[i] in digits ('145', '5.5', '0.75', '1.5'), and the index
    after it; (None, i) when no number starts there."""
    if words[i] == "point" and _decimals(words, i + 1)[0]:
        whole, j = 0, i
    else:
        number, j = _integer(words, i)
        if number is None:
            return None, i
        whole = number
    if words[j : j + 3] == ["and", "a", "half"]:
        return f"{whole}.5", j + 3
    digits, end = _decimals(words, j + 1) if words[j : j + 1] == ["point"] else ("", j)
    return (f"{whole}.{digits}", end) if digits else (str(whole), j)


def normalise(text: str) -> str:
    """Lowercase, punctuation dropped, number words as digits, whitespace collapsed.

    >>> normalise("Sixty seconds, then one hundred and forty-five cm!")
    '60 seconds then 145 centimeter'
    """
    words, out, i = _tokens(text), [], 0
    while i < len(words):
        number, j = _number(words, i)
        out.append(words[i] if number is None else number)
        i = i + 1 if number is None else j
    return " ".join(out)
