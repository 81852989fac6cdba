"""Claims and their verification (`videorag.verify`), with a judge double."""
from __future__ import annotations

import numpy as np

from videorag.config import VerifyConfig
from videorag.generate import Evidence
from videorag.types import Answer, Citation, Hit, Segment
from videorag.verify import ABSTAINED, split_claims, verify


def test_claims_carry_their_citation_markers_and_lean_on_the_sentence_before():
    claims = split_claims("Sand the area around the hole [2]. Then wait a minute. Press the patch [1][3]. "
                          "Done [7].", moments=3)
    assert [c.text for c in claims] == ["Sand the area around the hole.", "Then wait a minute.",
                                        "Press the patch.", "Done."]
    assert [c.citations for c in claims] == [[1], [1], [0, 2], [0, 2]]   # [7] does not exist: ignored
    assert split_claims("No markers at all.", moments=2)[0].citations == [0, 1]


class SupportJudge:
    """P(supported) 0.9 when every word of the claim is in the passage, else 0.1."""

    def __init__(self):
        self.asked = []

    def probabilities(self, asks):
        self.asked += [text for text, _ in asks]
        out = []
        for text, _ in asks:
            passage, claim = text.split("\nPassage: ", 1)[1].split("\nClaim: ")
            words = {w.strip(".,").lower() for w in claim.split()}
            out.append(0.9 if words <= {w.strip(".,[]:").lower() for w in passage.split()} else 0.1)
        return np.array(out)


def evidence():
    hit = Hit("v1", "/videos/tire.mp4", 10.0, 20.0, 1.0, "")
    lines = [Segment(10.0, 14.0, "Sand the area around the hole."), Segment(14.0, 20.0, "Wait one minute.")]
    return [Evidence(hit, lines, screen="Glue: wait until dull")]


def answer(text):
    return Answer("how do I patch a tube", text, [evidence()[0].citation], "test")


def test_each_claim_gets_its_support_and_an_unsupported_one_is_marked():
    judge = SupportJudge()
    out = verify(answer("Sand the area around the hole [1]. Wait ten minutes [1]."), evidence(), judge, VerifyConfig())
    assert not out.abstained and [c.support for c in out.claims] == [0.9, 0.1]
    assert [c.supported for c in out.claims] == [True, False]
    assert "[1]" in out.answer and "ten minutes" in out.answer   # marked, not removed
    assert "on screen: Glue: wait until dull" in judge.asked[0]   # the verifier reads the screen too


def test_unsupported_claims_can_be_dropped():
    out = verify(answer("Sand the area around the hole [1]. Wait ten minutes [1]."), evidence(), SupportJudge(),
                 VerifyConfig(unsupported="drop"))
    assert out.answer == "Sand the area around the hole [1]." and len(out.claims) == 1
    assert [c.citations for c in split_claims(out.answer, 1)] == [[0]]   # the rebuilt text splits the same


def test_an_answer_nothing_supports_abstains():
    out = verify(answer("Use a hair dryer [1]."), evidence(), SupportJudge(), VerifyConfig())
    assert out.abstained and out.answer == ABSTAINED and out.citations == [] and out.claims == []


def test_the_generator_saying_not_covered_abstains_even_without_a_judge():
    out = verify(answer("NOT COVERED"), evidence(), None, VerifyConfig())
    assert out.abstained and out.answer == ABSTAINED
    plain = verify(answer("Sand it [1]."), evidence(), None, VerifyConfig())
    assert not plain.abstained and plain.claims[0].support is None   # no judge: claims, no support


def test_answer_json_carries_claims_and_abstention():
    out = verify(answer("Sand the area around the hole [1]."), evidence(), SupportJudge(), VerifyConfig()).to_dict()
    assert out["claims"] == [{"text": "Sand the area around the hole.", "citations": [0], "support": 0.9, "supported": True}]
    assert out["abstained"] is False and out["citations"][0] == Citation("v1", "/videos/tire.mp4", 10.0, 20.0).to_dict()
