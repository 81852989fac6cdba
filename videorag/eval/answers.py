"""Scoring of `videorag eval answers`: is an answer right, grounded, and silent when it should be?

Pure functions, no model. The golden items come from `golden()` (the moment benchmark's rows, a
key fact per question, and questions no video answers); each answer is the JSON that
`videorag ask --json` printed for its item, paired by position. Metrics are fractions in 0..1,
or None when their denominator is empty:

- key_fact_accuracy: answerable items whose answer states the key fact (`has_fact`) and did not
  abstain / answerable items.
- rouge_l: ROUGE-L F × 100 (`metrics.rouge_l`, the number results/README.md reports) of the
  answer against the answering line(s), over answerable, non-abstained items with a reference.
- citation_precision: over answerable, non-abstained answers, the citations their claims point at
  (all citations when there are no claims), pooled: the fraction whose file stem is the item's
  video and whose [start, end] overlaps the gold window (touching ends do not count).
- claim_support_rate: claims of non-abstained answers with support >= threshold / claims of
  non-abstained answers that carry a support value.
- abstention_precision: abstentions on unanswerable items / abstentions.
- abstention_recall: abstentions on unanswerable items / unanswerable items.
- false_abstention: abstentions on answerable items / answerable items.
- answerability_auroc: how well the answers' `answerable` (P(the moments answer), from the
  answerability stage) ranks answerable items above unanswerable ones (the area under the ROC
  curve; None without both kinds or without the values); risk_coverage: [coverage, risk] when the
  most confident tenth, fifth, … of the items are answered (risk: the share of unanswerable ones).
- cited_seconds_p50, cited_within_5s, cited_within_15s: the length of the checked citations of
  answerable, non-abstained answers (median seconds; share of them 5 s, 15 s or shorter).
- cited_on_words: over answerable, non-abstained answers with citations, the mean share of their
  checked citations that are 15 s or shorter and hold where the key fact is said (an item's
  `said`, [start, end] seconds, when its benchmark located it: half of it, or half a second of
  it); an item without `said`: the citations of it on the gold window.

`normalise` makes "Sixty seconds" and "60 seconds" one text: lowercase; number words to digits
(up to 999,999, "a hundred" = 100, decimals "five point five" = 5.5, "point seven five" = 0.75,
"one and a half" = 1.5); "%" to "percent", "°" to "degree"; a few British spellings and unit
abbreviations to one form ("tyre" = "tire", "metre" = "meter", "cm" = "centimeter"); the other
punctuation dropped (a decimal point between digits kept); whitespace collapsed.
"""

from __future__ import annotations

import re
from pathlib import PurePath

import numpy as np

from .metrics import rouge_l

NEAR = 15.0  # seconds: a citation longer than this does not point at the words

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


# -- key facts ----------------------------------------------------------------------------------
def _stem(word: str) -> str:
    """A plural's singular, roughly: 'hours' -> 'hour'; 'glass' and 'gas' stay."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _contains(words: list[str], phrase: list[str]) -> bool:
    n = len(phrase)
    return any(words[k : k + n] == phrase for k in range(len(words) - n + 1))


def has_fact(answer: str, fact: str) -> bool:
    """Does `answer` state `fact`? After `normalise` (and ignoring a plural s): the fact appears as
    a whole-word phrase, or written as one word ('c profile' ~ 'cProfile'), or every content word
    of the fact (not a STOP_WORDS word) appears somewhere in the answer.

    >>> has_fact("Leave it for 60 seconds.", "sixty seconds"), has_fact("6 seconds", "sixty seconds")
    (True, False)
    """
    words = [_stem(w) for w in normalise(answer).split()]
    fact_words = normalise(fact).split()
    wanted = [_stem(w) for w in fact_words]
    if not wanted:
        return False
    if _contains(words, wanted) or _stem("".join(fact_words)) in words:
        return True
    content = {w for w in wanted if w not in STOP_WORDS}
    return bool(content) and content <= set(words)


# -- scoring ------------------------------------------------------------------------------------
def _pairs(items: list[dict], answers: list[dict]) -> list[tuple[dict, dict]]:
    if len(items) != len(answers):
        raise ValueError(
            f"got {len(items)} items and {len(answers)} answers: answers pair with items by "
            f"position, one `videorag ask --json` output per item"
        )
    for item, answer in zip(items, answers):
        asked = (answer.get("question") or item["question"]).strip()
        if asked != item["question"].strip():
            raise ValueError(
                f"item {item['id']!r} asks {item['question']!r} but its answer is to {asked!r}: "
                f"keep the answers in the items' order"
            )
    return list(zip(items, answers))


def _checked_citations(answer: dict) -> list[dict]:
    """The citations the claims point at (each once), or all citations when there are no claims."""
    citations, claims = answer.get("citations") or [], answer.get("claims") or []
    if not claims:
        return list(citations)
    used = sorted({n for claim in claims for n in claim.get("citations") or [] if 0 < n <= len(citations)})
    return [citations[n - 1] for n in used]


def _on_window(citation: dict, item: dict) -> bool:
    window, path = item["window"], citation.get("path")
    if window is None or not path:
        return False
    return PurePath(path).stem == item["video"] and citation["start"] < window[1] and citation["end"] > window[0]


def _on_words(citation: dict, item: dict) -> bool:
    """Whether the citation is at most `NEAR` seconds long and holds where the key fact is said
    (`item["said"]`, [start, end] seconds, when its benchmark located it: at least half of it, or
    half a second of it); else whether it overlaps the gold window."""
    if citation["end"] - citation["start"] > NEAR or not _on_window(citation, item):
        return False
    said = item.get("said")
    if not said:
        return True
    overlap = min(citation["end"], said[1]) - max(citation["start"], said[0])
    return overlap >= min(0.5, (said[1] - said[0]) / 2)


def _row(item: dict, answer: dict) -> dict:
    """One item's outcome. `cited` counts the checked citations of an answerable, non-abstained
    answer, `cited_ok` those on the gold window; `support` lists every claim's support value."""
    answerable, abstained = item["answer"] is not None, bool(answer.get("abstained"))
    checked = _checked_citations(answer) if answerable and not abstained else []
    return {
        "id": item["id"],
        "split": item.get("split"),
        "kind": item.get("kind"),
        "answerable": answerable,
        "fact_ok": (not abstained and has_fact(answer.get("answer") or "", item["answer"])) if answerable else None,
        "abstained": abstained,
        "cited": len(checked),
        "cited_ok": sum(_on_window(c, item) for c in checked),
        "cited_on_words": sum(_on_words(c, item) for c in checked),
        "cited_seconds": [round(c["end"] - c["start"], 3) for c in checked],
        "p": answer.get("answerable"),
        "support": [claim.get("support") for claim in answer.get("claims") or []],
    }


def _ratio(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def _rouge(pairs: list[tuple[dict, dict]], rows: list[dict]) -> float | None:
    scored = [
        (answer.get("answer") or "", item["reference"])
        for (item, answer), row in zip(pairs, rows)
        if row["answerable"] and not row["abstained"] and item.get("reference")
    ]
    return rouge_l([p for p, _ in scored], [r for _, r in scored]).value if scored else None


def score_answers(items: list[dict], answers: list[dict], threshold: float = 0.5) -> dict:
    """Every metric of the module docstring over `items` and their `answers` (paired by position),
    with `per_item` rows."""
    pairs = _pairs(items, answers)
    rows = [_row(item, answer) for item, answer in pairs]
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    abstained = [r for r in rows if r["abstained"]]
    spoken = [r for r in answerable if not r["abstained"]]
    supports = [s for r in rows if not r["abstained"] for s in r["support"] if s is not None]
    return {
        "n": len(rows),
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "key_fact_accuracy": _ratio(sum(r["fact_ok"] for r in answerable), len(answerable)),
        "rouge_l": _rouge(pairs, rows),
        "citation_precision": _ratio(sum(r["cited_ok"] for r in spoken), sum(r["cited"] for r in spoken)),
        "claim_support_rate": _ratio(sum(s >= threshold for s in supports), len(supports)),
        "abstention_precision": _ratio(sum(not r["answerable"] for r in abstained), len(abstained)),
        "abstention_recall": _ratio(sum(r["abstained"] for r in unanswerable), len(unanswerable)),
        "false_abstention": _ratio(sum(r["abstained"] for r in answerable), len(answerable)),
        **_answerability(rows),
        **_lengths([s for r in spoken for s in r["cited_seconds"]]),
        "cited_on_words": _mean([r["cited_on_words"] / r["cited"] for r in spoken if r["cited"]]),
        "per_item": rows,
    }


def _answerability(rows: list[dict]) -> dict:
    scored = [r for r in rows if r["p"] is not None]
    labels = np.array([r["answerable"] for r in scored], bool)
    scores = np.array([r["p"] for r in scored], np.float64)
    return {"answerability_auroc": auroc(labels, scores), "risk_coverage": risk_coverage(labels, scores)}


def _lengths(seconds: list[float]) -> dict:
    return {
        "cited_seconds_p50": float(np.median(seconds)) if seconds else None,
        "cited_within_5s": _ratio(sum(s <= 5.0 for s in seconds), len(seconds)),
        "cited_within_15s": _ratio(sum(s <= NEAR for s in seconds), len(seconds)),
    }


def _mean(values: list[float]) -> float | None:
    return float(np.mean(values)) if values else None


def auroc(labels: np.ndarray, scores: np.ndarray) -> float | None:
    """The area under the ROC curve: the chance that a positive scores above a negative (ties
    count half); None without both."""
    pos, neg = scores[labels], scores[~labels]
    if not len(pos) or not len(neg):
        return None
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return round(float(wins) / (len(pos) * len(neg)), 3)


def risk_coverage(labels: np.ndarray, scores: np.ndarray, steps: int = 10) -> list[list[float]]:
    """[coverage, risk] when the most confident 1/steps, 2/steps, … of the items are answered;
    risk is the share of negatives among them."""
    if not len(scores):
        return []
    order = np.argsort(-scores, kind="stable")
    out = []
    for i in range(1, steps + 1):
        k = max(1, round(i * len(scores) / steps))
        out.append([round(i / steps, 2), round(float(1 - labels[order[:k]].mean()), 3)])
    return out


def by_group(items: list[dict], answers: list[dict], key: str, threshold: float = 0.5) -> dict[str, dict]:
    """`score_answers` per value of `key` ("split" or "kind"), in order of first appearance."""
    groups: dict[str, tuple[list[dict], list[dict]]] = {}
    for item, answer in _pairs(items, answers):
        group = groups.setdefault(str(item[key]), ([], []))
        group[0].append(item)
        group[1].append(answer)
    return {name: score_answers(its, ans, threshold) for name, (its, ans) in groups.items()}


# -- golden items -------------------------------------------------------------------------------
def _answerable(row: dict, facts: dict, references: dict, split: str | None) -> dict:
    if row["id"] not in facts:
        raise ValueError(f"no key fact for {row['id']!r}: add it to benchmarks/answers/facts.json")
    window = row["windows"][row["relevant"][0]][0]
    return {
        "id": row["id"],
        "question": row["query"],
        "video": row["video"],
        "window": list(window),
        "answer": facts[row["id"]],
        "reference": references.get(row["id"]),
        "split": split,
        "kind": row["kind"],
    }


def golden(
    moments_jsonl: list[dict],
    facts: dict,
    unanswerable: list[dict],
    references: dict | None = None,
    *,
    split: str | None = None,
) -> list[dict]:
    """The items of one split: its moment golden rows (window = the first window in the relevant
    video), each with its key fact and, when given, its reference text (`references`: id -> the
    answering line(s)); then the unanswerable questions, each "near" a video of these rows (its
    kind is theirs; window, answer and reference None; id "<near>#unanswerable-<n>")."""
    kinds = {row["video"]: row["kind"] for row in moments_jsonl}
    items = [_answerable(row, facts, references or {}, split) for row in moments_jsonl]
    for n, question in enumerate(unanswerable, 1):
        near = question["near"]
        if near not in kinds:
            raise ValueError(
                f"unanswerable question {question['question']!r} is near {near!r}, which is not "
                f"a video of these rows: {sorted(kinds)}"
            )
        items.append(
            {
                "id": f"{near}#unanswerable-{n}",
                "question": question["question"],
                "video": near,
                "window": None,
                "answer": None,
                "reference": None,
                "split": split,
                "kind": kinds[near],
            }
        )
    return items
