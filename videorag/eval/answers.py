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

`normalise` (`numbers.py`) makes "Sixty seconds" and "60 seconds" one text.
"""

from __future__ import annotations

from pathlib import PurePath

import numpy as np

from .metrics import rouge_l
from .numbers import STOP_WORDS, normalise

NEAR = 15.0  # seconds: a citation longer than this does not point at the words


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
    for item, answer in zip(items, answers, strict=True):
        asked = (answer.get("question") or item["question"]).strip()
        if asked != item["question"].strip():
            raise ValueError(
                f"item {item['id']!r} asks {item['question']!r} but its answer is to {asked!r}: "
                f"keep the answers in the items' order"
            )
    return list(zip(items, answers, strict=True))


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
        for (item, answer), row in zip(pairs, rows, strict=True)
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
