"""The one place JSON times are rounded and moments are written as text; each result type's JSON
is its shape in videorag.schemas."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from videorag.types import Answer, Citation, Claim, Hit, search_json, span


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
    same_shape(schemas.Answer, Answer("q", "The videos do not say.", [], "extractive", abstained=True).to_dict())


def test_the_cli_path_does_not_import_the_schemas():
    """pydantic and the models cost ~75 ms: `videorag search` (types, cli) goes without them."""
    code = "import sys, videorag.cli, videorag.types; sys.exit('videorag.schemas' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parents[1]).returncode == 0
