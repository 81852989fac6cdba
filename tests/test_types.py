"""The one place JSON times are rounded and moments are written as text (each moment's JSON
carries its text: a page shows it as it is); an answer's JSON cut into the parts a page shows
(so that the page cuts nothing); each result type's JSON is its shape in videorag.schemas."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from videorag.types import Answer, Citation, Claim, Hit, answer_parts, search_json, span
from videorag.verify import split_claims
from videorag.verify.claims import marked


def test_json_times_carry_no_float_noise():
    noisy = 0.1 + 23.3   # 23.400000000000002
    answer = Answer("q", "a", [Citation("v", "p.mp4", noisy, noisy + 3)], "extractive")
    hit = Hit("v", "p.mp4", noisy, noisy + 3, 0.5, "t")
    text = json.dumps([answer.to_dict(), hit.to_dict()])
    assert "23.400000000000002" not in text and text.count('"start": 23.4,') == 2


def test_a_moment_is_shown_from_the_second_it_starts_in_to_the_second_it_ends_in():
    assert span(25.4, 29.2) == "0:25–0:30"
    assert span(26.0, 29.0) == "0:26–0:29"   # whole seconds stay as they are
    assert span(3599.5, 3600.2) == "59:59–1:00:01"
    hit = Hit("v", "p.mp4", 25.4, 29.2, 0.5, "t")
    assert hit.to_dict()["span"] == hit.citation.to_dict()["span"] == "0:25–0:30"   # the JSON says it as shown


# -- an answer in parts -------------------------------------------------------------------------
def joined(parts: list[dict]) -> str:
    return "".join(p["text"] for p in parts)


def test_a_verified_answer_is_its_claims_words_and_markers_in_order():
    claims = [Claim("Boil the water in a kettle.", [0], 0.91, True), Claim("Juggle while it heats.", [1, 0], 0.12, False)]
    text = " ".join(marked(c.text, c.citations) for c in claims)   # as verify writes the answer
    parts = Answer("q", text, [Citation("v", "p.mp4", 1, 2)] * 2, "extractive", claims=claims).to_dict()["parts"]
    assert joined(parts) == text
    assert parts == [{"text": "Boil the water in a kettle ", "claim": 1, "citations": []},
                     {"text": "[1]", "claim": 1, "citations": [1]},
                     {"text": ".", "claim": 1, "citations": []},
                     {"text": " ", "claim": None, "citations": []},
                     {"text": "Juggle while it heats ", "claim": 2, "citations": []},
                     {"text": "[2]", "claim": 2, "citations": [2]},
                     {"text": "[1]", "claim": 2, "citations": [1]},
                     {"text": ".", "claim": 2, "citations": []}]


def test_parts_hold_any_answer_whole_whatever_its_markers_and_claims():
    text = "Sand it [2, 3] and dry it [9]. Then paint [1].  Done."
    parts = answer_parts(text, split_claims(text, 3), 3)
    assert joined(parts) == text
    assert [p["text"] for p in parts if p["citations"]] == ["[2, 3]", "[1]"]   # [9] cites nothing there is: words
    assert [p["citations"] for p in parts if p["citations"]] == [[2, 3], [1]]
    assert {p["claim"] for p in parts} == {1, 2, 3, None}
    assert "".join(p["text"] for p in parts if p["claim"] == 1) == "Sand it [2, 3] and dry it [9]."
    # a claim the answer does not say has no words in it; the answer is still whole
    parts = answer_parts("Boil it, then juggle.", [Claim("Boil it.", [0]), Claim("Then juggle.", [0])], 1)
    assert parts == [{"text": "Boil it, then juggle.", "claim": None, "citations": []}]
    assert answer_parts("", [], 0) == []
    abstained = Answer("q", "The videos do not cover this.", [], "extractive", abstained=True).to_dict()
    assert abstained["parts"] == [{"text": "The videos do not cover this.", "claim": None, "citations": []}]


# -- each dict is its shape in videorag.schemas ------------------------------------------------
def same_shape(model, data) -> None:
    """`data` is `model`'s JSON to the letter: its fields, in order, their values unchanged by
    validation (no field left out, none added, none coerced)."""
    assert list(data) == list(model.model_fields)
    assert json.dumps(model.model_validate(data).model_dump(mode="json")) == json.dumps(data)


def test_every_result_type_builds_its_schemas_shape():
    from videorag import schemas

    hits = [Hit("v", "p.mp4", 1.0, 4.5, 0.8125, "boil water"), Hit("w", "q.mp4", 0.1 + 23.3, 30, 0.1, "x", weak=True)]
    claims = [Claim("Boil water.", [0], 0.91234, True), Claim("Unchecked.", [0, 1])]
    answer = Answer("how?", "Boil water [1].", [h.citation for h in hits], "extractive", "stub:m", claims)
    same_shape(schemas.Hit, hits[1].to_dict())
    same_shape(schemas.SearchResult, search_json("kettle", hits))
    same_shape(schemas.SearchResult, search_json("nothing", []))
    same_shape(schemas.Citation, hits[0].citation.to_dict())
    for claim in claims:
        same_shape(schemas.Claim, claim.to_dict())
    same_shape(schemas.Answer, answer.to_dict())
    for part in answer.to_dict()["parts"]:
        same_shape(schemas.AnswerPart, part)
    same_shape(schemas.Answer, Answer("q", "The videos do not say.", [], "extractive", abstained=True).to_dict())


def test_the_cli_path_does_not_import_the_schemas():
    """pydantic and the models cost ~75 ms: `videorag search` (types, cli) goes without them."""
    code = "import sys, videorag.cli, videorag.types; sys.exit('videorag.schemas' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parents[1]).returncode == 0
