"""Answer scoring (`videorag eval answers`): normalisation, key facts, every metric on hand-made
answers with known values, golden items; and the shipped facts and unanswerable questions checked
against the moment benchmark's recordings."""
from __future__ import annotations

import doctest
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from benchmarks.moments.build import golden_rows
from benchmarks.moments.corpus import SPLITS, recordings
from videorag.eval import answers
from videorag.eval.answers import by_group, golden, has_fact, normalise, score_answers

ROOT = Path(__file__).resolve().parents[2]

FACTS = json.loads((ROOT / "benchmarks" / "answers" / "facts.json").read_text())
UNANSWERABLE = json.loads((ROOT / "benchmarks" / "answers" / "unanswerable.json").read_text())
# questions whose line indices point one line before the line that answers them (benchmark data to
# fix in benchmarks/moments/recordings/long_test.json); their facts are the answer, taken from the next line
MISPOINTED = {"python-lecture-7#2", "python-lecture-7#6"}


def test_docstring_examples():
    assert doctest.testmod(answers).failed == 0


# -- normalise ----------------------------------------------------------------------------------
@pytest.mark.parametrize("text,expected", [
    ("Sixty seconds", "60 seconds"),
    ("twenty five", "25"),
    ("twenty-five", "25"),
    ("three", "3"),
    ("zero", "0"),
    ("a hundred", "100"),
    ("one hundred", "100"),
    ("one hundred and eighty degrees", "180 degrees"),
    ("nine hundred ninety nine", "999"),
    ("three thousand two hundred", "3200"),
    ("five point five", "5.5"),
    ("point seven five", "0.75"),
    ("Python three point ten", "python 3.10"),
    ("one and a half", "1.5"),
    ("eleven or twelve speed", "11 or 12 speed"),
    ("twenty twenty", "20 20"),                       # two numbers, not forty
    ("five six", "5 6"),
    ("a cup", "a cup"),                               # "a" alone is no number
    ("the point on the eye", "the point on the eye"),
    ("  Wait,   FIVE minutes!! ", "wait 5 minutes"),
    ("0.5% of 3,200", "0.5 percent of 3200"),
    ("plumber's grease", "plumbers grease"),
    ("tyre, 5 cm, metres", "tire 5 centimeter meters"),
])
def test_normalise(text, expected):
    assert normalise(text) == expected


def test_normalise_makes_spelled_and_digit_numbers_equal():
    assert normalise("Sixty seconds") == normalise("60 seconds")
    assert normalise("one hundred and forty five centimetres") == normalise("145 centimetres")


# -- has_fact -----------------------------------------------------------------------------------
@pytest.mark.parametrize("answer,fact", [
    ("Leave it for 60 seconds.", "sixty seconds"),
    ("Clamp it for at least 12 hours.", "twelve hours"),
    ("Use a little silicone plumber's grease on the O-rings.", "silicone grease"),   # content words
    ("Replace it at 0.5% on the checker.", "point five percent"),
    ("Profile it with cProfile.", "c profile"),                                   # written as one word
    ("Overmixing makes them flat.", "over-mixing"),
    ("About 1.5 mm.", "one and a half millimetres"),
    ("Keep two hooks.", "two hooks"),
    ("Use a 90 degree oven", "ninety degree oven"),
    ("Roots at five centimeters", "five centimetres"),
])
def test_has_fact_accepts(answer, fact):
    assert has_fact(answer, fact)


@pytest.mark.parametrize("answer,fact", [
    ("Leave it for 6 seconds.", "sixty seconds"),       # a wrong number
    ("Leave it for 600 seconds.", "sixty seconds"),
    ("Clamp it for at least 2 hours.", "twelve hours"),
    ("Use petroleum jelly.", "silicone grease"),
    ("Use grease.", "silicone grease"),                  # a content word missing
    ("Turn it clockwise.", "counterclockwise"),
    ("", "vinegar"),
    ("anything", ""),
])
def test_has_fact_rejects(answer, fact):
    assert not has_fact(answer, fact)


# -- score_answers ------------------------------------------------------------------------------
def item(id_: str, video: str | None, window, fact, reference=None, kind="long", split="dev") -> dict:
    return {"id": id_, "question": f"question {id_}", "video": video, "window": window, "answer": fact,
            "reference": reference, "split": split, "kind": kind}


def cite(video: str, start: float, end: float) -> dict:
    return {"video_id": f"id-{video}", "path": f"/videos/{video}.mp4", "start": start, "end": end}


def reply(id_: str, text: str, citations=(), claims=None, abstained=False) -> dict:
    out = {"question": f"question {id_}", "answer": text, "citations": list(citations), "generator": "fake",
           "judge": None, "abstained": abstained}
    if claims is not None:
        out["claims"] = claims
    return out


ITEMS = [
    item("A", "chair", [100.0, 112.0], "twelve hours", "leave it clamped for at least twelve hours"),
    item("B", "faucet", [10.0, 20.0], "silicone grease", "smear a little silicone grease on the O-rings"),
    item("C", "knife", [5.0, 9.0], "two coins", "two coins stacked under the spine", split="test"),
    item("D", "chair", None, None, kind="short"),
    item("E", "chair", None, None, kind="short", split="test"),
    item("F", "sealant", [35.0, 50.0], "sixty", kind="short", split="test"),
    item("G", "faucet", None, None, kind="short"),
]
ANSWERS = [
    # right fact; claims point at 3 citations (numbered from 1, as the JSON numbers them): on the window, before it, in another video
    reply("A", "leave it clamped for at least twelve hours",
          [cite("chair", 105, 110), cite("chair", 0, 12), cite("hinge", 100, 110)],
          [{"text": "12 hours", "citations": [1], "support": 0.9},
           {"text": "clamp", "citations": [2, 3], "support": 0.2},
           {"text": "glue", "citations": [], "support": None}]),
    # wrong fact; only citation 0 is claimed (citation 1 just touches the window's end: not counted)
    reply("B", "Use petroleum jelly.", [cite("faucet", 15, 18), cite("faucet", 20, 25)],
          [{"text": "jelly", "citations": [1], "support": 0.8}, {"text": "x", "citations": [], "support": 0.6}]),
    # answerable, abstained (though it names the fact)
    reply("C", "two coins stacked under the spine", [cite("knife", 6, 8)],
          [{"text": "coins", "citations": [1], "support": 0.1}], abstained=True),
    # unanswerable, abstained
    reply("D", "The videos do not say.", abstained=True),
    # unanswerable, confidently wrong
    reply("E", "Use BrandX.", [cite("chair", 100, 110)], [{"text": "brand", "citations": [1], "support": 0.4}]),
    # no claims key: every citation checked, one on the window, one touching its end (no overlap)
    reply("F", "About 60 ml for a mountain bike.", [cite("sealant", 30, 40), cite("sealant", 50, 55)]),
    # unanswerable, answered with nothing but not abstained
    reply("G", ""),
]


def test_score_answers_every_metric():
    pytest.importorskip("rouge_score")
    s = score_answers(ITEMS, ANSWERS)
    assert (s["n"], s["answerable"], s["unanswerable"]) == (7, 4, 3)
    assert s["key_fact_accuracy"] == pytest.approx(2 / 4)          # A and F; C abstained
    assert s["rouge_l"] == pytest.approx(50.0)                      # A 100, B 0; C abstained, F no reference
    assert s["citation_precision"] == pytest.approx(3 / 6)          # pooled: A 1/3, B 1/1, F 1/2
    assert s["claim_support_rate"] == pytest.approx(3 / 5)          # 0.9 0.2 0.8 0.6 0.4; C abstained, None skipped
    assert s["abstention_precision"] == pytest.approx(1 / 2)        # C, D abstained; D unanswerable
    assert s["abstention_recall"] == pytest.approx(1 / 3)           # D of D, E, G
    assert s["false_abstention"] == pytest.approx(1 / 4)            # C of A, B, C, F


def test_score_answers_per_item_rows():
    rows = {r["id"]: r for r in score_answers(ITEMS, ANSWERS)["per_item"]}
    assert [rows[k]["fact_ok"] for k in "ABCDEFG"] == [True, False, False, None, None, True, None]
    assert [rows[k]["abstained"] for k in "ABCDEFG"] == [False, False, True, True, False, False, False]
    assert [(rows[k]["cited"], rows[k]["cited_ok"]) for k in "ABCDEFG"] == [
        (3, 1), (1, 1), (0, 0), (0, 0), (0, 0), (2, 1), (0, 0)]
    assert rows["A"]["support"] == [0.9, 0.2, None]
    assert (rows["C"]["split"], rows["D"]["kind"]) == ("test", "short")


def test_score_answers_threshold():
    assert score_answers(ITEMS, ANSWERS, threshold=0.85)["claim_support_rate"] == pytest.approx(1 / 5)


def test_score_answers_empty_denominators_are_none():
    s = score_answers(ITEMS[3:4], ANSWERS[3:4])          # one unanswerable item, abstained
    assert s["key_fact_accuracy"] is None and s["false_abstention"] is None
    assert s["rouge_l"] is None and s["citation_precision"] is None and s["claim_support_rate"] is None
    assert s["abstention_precision"] == 1.0 and s["abstention_recall"] == 1.0
    s = score_answers(ITEMS[:1], ANSWERS[:1])
    assert s["abstention_precision"] is None and s["abstention_recall"] is None


def test_claims_without_citations_check_none():
    s = score_answers(ITEMS[:1], [reply("A", "12 hours", [cite("chair", 0, 5)], [{"text": "t", "citations": []}])])
    assert s["citation_precision"] is None and s["claim_support_rate"] is None


def test_score_answers_refuses_misaligned_answers():
    with pytest.raises(ValueError, match="7 items and 6 answers"):
        score_answers(ITEMS, ANSWERS[:-1])
    with pytest.raises(ValueError, match="order"):
        score_answers(ITEMS[:2], ANSWERS[1::-1])


def test_by_group():
    pytest.importorskip("rouge_score")
    kinds = by_group(ITEMS, ANSWERS, "kind")
    assert list(kinds) == ["long", "short"]
    assert (kinds["long"]["n"], kinds["short"]["n"]) == (3, 4)
    assert kinds["long"]["key_fact_accuracy"] == pytest.approx(1 / 3)
    assert kinds["short"]["key_fact_accuracy"] == 1.0
    assert kinds["short"]["abstention_recall"] == pytest.approx(1 / 3)
    splits = by_group(ITEMS, ANSWERS, "split")
    assert {k: v["n"] for k, v in splits.items()} == {"dev": 4, "test": 3}
    assert splits["test"]["false_abstention"] == pytest.approx(1 / 2)


# -- golden -------------------------------------------------------------------------------------
ROWS = [
    {"id": "chair-video#1", "query": "how long do I clamp it", "relevant": ["v1"],
     "windows": {"v1": [[100.0, 112.0], [120.0, 125.0]]}, "kind": "long", "video": "chair-video"},
    {"id": "kettle#1", "query": "what descales it", "relevant": ["v2"], "windows": {"v2": [[5.5, 9.0]]},
     "kind": "short", "video": "kettle"},
]


def test_golden_builds_items():
    items = golden(ROWS, {"chair-video#1": "twelve hours", "kettle#1": "vinegar", "other#1": "x"},
                   [{"question": "which brand of glue", "near": "chair-video"}],
                   {"kettle#1": "equal parts white vinegar and water"}, split="dev")
    assert items == [
        {"id": "chair-video#1", "question": "how long do I clamp it", "video": "chair-video",
         "window": [100.0, 112.0], "answer": "twelve hours", "reference": None, "split": "dev", "kind": "long"},
        {"id": "kettle#1", "question": "what descales it", "video": "kettle", "window": [5.5, 9.0],
         "answer": "vinegar", "reference": "equal parts white vinegar and water", "split": "dev", "kind": "short"},
        {"id": "chair-video#unanswerable-1", "question": "which brand of glue", "video": "chair-video",
         "window": None, "answer": None, "reference": None, "split": "dev", "kind": "long"},
    ]


def test_golden_refuses_a_missing_fact_or_a_foreign_video():
    with pytest.raises(ValueError, match="kettle#1"):
        golden(ROWS, {"chair-video#1": "twelve hours"}, [])
    with pytest.raises(ValueError, match="lawnmower"):
        golden(ROWS, {"chair-video#1": "a", "kettle#1": "b"}, [{"question": "q", "near": "lawnmower"}])


# -- the shipped data ---------------------------------------------------------------------------
def answering_lines() -> dict[str, tuple[str, list[str]]]:
    """id (as build.py forms it) -> (split, the lines that answer it, per the recordings)."""
    out = {}
    for rec in recordings():
        parts = {p.key: p for p in rec.parts}
        spans = [SimpleNamespace(start=0.0, end=1.0)] * len(rec.steps())
        for row, question in zip(golden_rows(rec, "video", spans), rec.questions):
            out[row["id"]] = (rec.split, [parts[question.part].lines[i] for i in question.lines])
    return out


def next_lines(question_id: str) -> list[str]:
    rec_slug, n = question_id.split("#")
    rec = next(r for r in recordings() if r.slug == rec_slug)
    question = rec.questions[int(n) - 1]
    lines = next(p for p in rec.parts if p.key == question.part).lines
    return [lines[i + 1] for i in question.lines]


def test_facts_cover_every_question_of_both_splits():
    lines = answering_lines()
    assert set(FACTS) == set(lines)
    assert {split: sum(s == split for s, _ in lines.values()) for split in SPLITS} == {"dev": 35, "test": 32}


@pytest.mark.parametrize("question_id", sorted(FACTS))
def test_fact_is_said_in_its_answering_lines(question_id):
    fact, said = FACTS[question_id], " ".join(answering_lines()[question_id][1])
    fact_words, line_words = len(normalise(fact).split()), len(normalise(said).split())
    assert 1 <= fact_words <= 6, f"{question_id}: key fact {fact!r} has {fact_words} words (a key phrase: 1–6)"
    assert line_words > 6, f"{question_id}: its answering line {said!r} is no longer than a key phrase"
    if question_id in MISPOINTED:      # when the data is fixed, this fails: drop the id from MISPOINTED
        assert not has_fact(said, fact) and has_fact(" ".join(next_lines(question_id)), fact)
    else:
        assert has_fact(said, fact), f"{fact!r} is not in {said!r}"


def test_unanswerable_questions_are_near_their_splits_videos():
    slugs = {split: {r.slug for r in recordings() if r.split == split} for split in SPLITS}
    assert set(UNANSWERABLE) == set(SPLITS)
    for split, questions in UNANSWERABLE.items():
        assert len(questions) == 12
        assert {q["near"] for q in questions} <= slugs[split]
        assert len({q["question"] for q in questions}) == len(questions)


def test_no_line_of_any_recording_holds_an_unanswerable_questions_content_words():
    lines = [line for rec in recordings() for part in rec.parts for line in part.lines]
    for questions in UNANSWERABLE.values():
        for q in questions:
            assert not any(has_fact(line, q["question"]) for line in lines), q["question"]


def test_answerability_auroc_and_risk_coverage():
    from videorag.eval.answers import auroc, risk_coverage

    labels = np.array([True, True, False, True, False])
    assert auroc(labels, np.array([0.9, 0.8, 0.1, 0.7, 0.2])) == 1.0
    assert auroc(labels, np.array([0.1, 0.2, 0.9, 0.3, 0.8])) == 0.0
    assert auroc(labels, np.full(5, 0.5)) == 0.5 and auroc(labels[:2], np.ones(2)) is None
    curve = risk_coverage(labels, np.array([0.9, 0.8, 0.1, 0.7, 0.2]), steps=5)
    assert curve[0] == [0.2, 0.0] and curve[2] == [0.6, 0.0] and curve[-1] == [1.0, 0.4]


def test_scores_carry_answerability_and_citation_lengths():
    items = [item("A", "chair", [100.0, 112.0], "twelve hours"), item("G", "faucet", None, None)]
    answers = [{**reply("A", "twelve hours [1].", [cite("chair", 105, 110)],
                        [{"text": "12 hours", "citations": [1], "support": 0.9}]), "answerable": 0.8},
               {**reply("G", "The videos do not cover this.", abstained=True), "answerable": 0.2}]
    s = score_answers(items, answers)
    assert s["answerability_auroc"] == 1.0 and s["cited_seconds_p50"] == 5.0 and s["cited_within_15s"] == 1.0
