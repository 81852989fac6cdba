"""Claims and their verification (`videorag.verify`), with a judge double."""
from __future__ import annotations

import numpy as np

from videorag.config import VerifyConfig
from videorag.types import Evidence
from videorag.types import FLAGS, Answer, Candidate, Citation, Claim, Hit, Segment, flag_words
from videorag.verify import ABSTAINED, split_claims, verify
from videorag.verify.pointing import point


def test_claims_carry_their_citation_markers_and_lean_on_the_sentence_before():
    claims = split_claims("Sand the area around the hole [2]. Then wait a minute. Press the patch [1][3]. "
                          "Done [7].", moments=3)
    assert [c.text for c in claims] == ["Sand the area around the hole.", "Then wait a minute.",
                                        "Press the patch.", "Done."]
    assert [c.citations for c in claims] == [[1], [1], [0, 2], [0, 2]]   # [7] does not exist: ignored
    assert split_claims("No markers at all.", moments=2)[0].citations == [0, 1]
    kept = split_claims("In, Mr. John Dashwood had leisure [1]. Dr. Who cites nothing.", moments=2)
    assert [(c.text, c.citations) for c in kept] == [("In, Mr. John Dashwood had leisure.", [0]),
                                                    ("Dr. Who cites nothing.", [0])]   # no claim "In, Mr."
    assert [c.text for c in split_claims("Open at 9 a.m. and close at 5 p.m. Done [1].", 1)] == [
        "Open at 9 a.m. and close at 5 p.m.", "Done."]


class SupportJudge:
    """Two questions, as the verifier asks them. "Does the passage answer the question?": 0.9 when
    the passage says a word of the question (beyond "how", "do", "i", "a", "the"), else 0.1. "Is the
    claim supported by the passage?": 0.9 when every word of the claim is in the passage, else 0.1."""

    SMALL = {"how", "do", "i", "a", "the", "what", "is", "of", "in"}

    def __init__(self):
        self.asked = []

    def probabilities(self, asks):
        self.asked += [text for text, _ in asks]
        return np.array([self._says(text) if "\nClaim: " in text else self._answers(text) for text, _ in asks])

    def _answers(self, text):
        question, passage = text.split("\nQuestion: ", 1)[1].split("\nPassage: ")
        return 0.9 if _words(question) - self.SMALL & _words(passage) else 0.1

    def _says(self, text):
        passage, claim = text.split("\nPassage: ", 1)[1].split("\nClaim: ")
        return 0.9 if _words(claim) <= _words(passage) else 0.1


def _words(text):
    return {w.strip(".,[]:?").lower() for w in text.split()}


def evidence():
    hit = Hit("v1", "/videos/tire.mp4", 10.0, 20.0, 1.0, "")
    lines = [Segment(10.0, 14.0, "Sand the area around the hole."), Segment(14.0, 20.0, "Wait one minute.")]
    return [Evidence(hit, lines, screen="Glue: wait until dull")]


def answer(text, question="how do I patch the hole in a tube"):
    return Answer(question, text, [evidence()[0].citation], "test")


def test_each_claim_points_at_its_sentence_gets_its_support_and_an_unsupported_one_is_marked():
    judge = SupportJudge()
    out = verify(answer("Sand the area around the hole [1]. Wait ten minutes [1]."), evidence(), judge, VerifyConfig())
    assert not out.abstained and [c.support for c in out.claims] == [0.9, 0.1]
    assert [c.supported for c in out.claims] == [True, False] and [c.flag for c in out.claims] == [None, "not_said"]
    assert [(c.start, c.end) for c in out.citations] == [(10.0, 14.0), (14.0, 20.0)]   # the sentences, not the excerpt
    assert [c.citations for c in out.claims] == [[0], [1]]
    assert out.answer == "Sand the area around the hole [1]. Wait ten minutes [2]."   # marked, not removed
    assert any("on screen: Glue: wait until dull" in text for text in judge.asked)   # the verifier reads the screen too


def test_a_claim_made_of_its_sentences_words_is_not_asked_whether_the_sentence_says_it():
    judge = SupportJudge()
    out = verify(answer("Around the hole, sand the area [1]."), evidence(), judge, VerifyConfig())
    assert not any("\nClaim: " in text for text in judge.asked) and out.claims[0].checks["says"] == 1.0
    judge = SupportJudge()   # framed by the question's own words ("patch", "tube"): the sentence says the rest
    out = verify(answer("To patch the tube, sand the area around the hole [1]."), evidence(), judge, VerifyConfig())
    assert not any("\nClaim: " in text for text in judge.asked) and out.claims[0].checks["says"] == 1.0
    judge = SupportJudge()   # a negation the sentence does not say is asked about
    out = verify(answer("Do not sand the area around the hole [1]."), evidence(), judge, VerifyConfig(), decided=True)
    assert any("\nClaim: " in text for text in judge.asked) and out.claims[0].checks["says"] == 0.1


def test_a_quote_is_supported_only_when_it_answers_the_question():
    quoted = verify(answer("Sand the area around the hole [1].", "what is the capital of France"), evidence(),
                    SupportJudge(), VerifyConfig())
    assert quoted.abstained   # its own words, but they do not answer the question
    judge = SupportJudge()
    kept = verify(answer("Sand the area around the hole [1]."), evidence(), judge, VerifyConfig())
    assert kept.claims[0].support == 0.9 and not any("\nClaim: " in text for text in judge.asked)


def test_a_flag_says_whether_the_moment_does_not_say_the_claim_or_says_it_beside_the_question():
    said = verify(answer("Sand the area around the hole [1]. Wait one minute [1].", "how do I patch the hole in a tube"),
                  evidence(), SupportJudge(), VerifyConfig(), decided=True)   # its own words, not naming the hole
    assert said.claims[1].supported is False and said.claims[1].checks["says"] == 1.0
    assert said.claims[1].flag == "off_question" and said.to_dict()["claims"][1]["flag"] == "off_question"
    unsaid = verify(answer("Use a hair dryer on the hole [1]."), evidence(), SupportJudge(), VerifyConfig(),
                    decided=True)   # answers the question's words, but the sentence does not say it
    assert unsaid.claims[0].checks["answers"] == 0.9 and unsaid.claims[0].flag == "not_said"
    assert flag_words("off_question").startswith("its cited moment says this") and flag_words(None) == FLAGS["not_said"]


def test_a_claim_on_the_best_moment_the_judge_read_is_not_doubted_once_the_question_is_found_answered():
    """The judge reads every moment low (0.1): once the answerability stage has decided that they
    answer, the claim on the best of them stands; a judged step reading better makes it beside the point."""
    lone = verify(answer("Wait one minute [1]."), evidence(), SupportJudge(), VerifyConfig(), decided=True)
    assert lone.claims[0].support == 0.1 and lone.claims[0].supported and lone.claims[0].flag is None
    assert lone.claims[0].checks["best"] == 0.1   # what it was compared with, in its JSON
    undecided = verify(answer("Wait one minute [1]."), evidence(), SupportJudge(), VerifyConfig())
    assert undecided.abstained   # no decision to lean on: the judge's doubt stands
    better = evidence()
    better[0].steps = [Candidate(0, "segment", 10.0, 14.0, 0.6, "llm", "Sand the area around the hole.")]
    beside = verify(answer("Wait one minute [1]."), better, SupportJudge(), VerifyConfig(), decided=True)
    assert beside.claims[0].flag == "off_question" and beside.claims[0].checks["best"] == 0.6
    unsaid = verify(answer("Use a hair dryer [1]."), evidence(), SupportJudge(), VerifyConfig(), decided=True)
    assert unsaid.claims[0].flag == "not_said"   # leading needs its words to say it


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
    assert out["claims"] == [{"text": "Sand the area around the hole.", "citations": [1], "support": 0.9, "supported": True,
                              "checks": {"answers": 0.9, "says": 1.0, "overlap": 1.0}, "flag": None}]
    assert out["abstained"] is False and out["citations"][0] == Citation("v1", "/videos/tire.mp4", 10.0, 14.0).to_dict()


def test_an_answer_the_answerability_stage_let_through_is_marked_not_abstained():
    out = verify(answer("Use a hair dryer [1]."), evidence(), SupportJudge(), VerifyConfig(), decided=True)
    assert not out.abstained and out.claims[0].supported is False
    dropped = verify(answer("Use a hair dryer [1]."), evidence(), SupportJudge(), VerifyConfig(unsupported="drop"),
                     decided=True)
    assert dropped.abstained   # nothing left to say


def test_a_claim_joining_two_sentences_cites_both_and_a_moment_that_does_not_say_it_is_dropped():
    other = Evidence(Hit("v2", "/videos/paint.mp4", 0.0, 5.0, 1.0, ""), [Segment(0.0, 5.0, "Let the paint dry for four hours.")])
    two = Answer("how do I patch the hole in a tube", "Sand the area around the hole and wait one minute [1][2].",
                 [evidence()[0].citation, other.citation], "test")
    out = verify(two, evidence() + [other], None, VerifyConfig())
    assert [(c.video_id, c.start, c.end) for c in out.citations] == [("v1", 10.0, 20.0)]   # the pair, not the paint
    assert out.answer == "Sand the area around the hole and wait one minute [1]."


def test_a_run_of_sentences_answers_the_question_when_one_of_its_sentences_does():
    class Diluted(SupportJudge):   # a sentence that answers, read among others, reads low
        def _answers(self, text):
            passage = text.split("\nPassage: ", 1)[1].split(" [on screen:")[0]
            return super()._answers(text) if len(passage.split()) <= 8 else 0.1

    judge = Diluted()
    out = verify(answer("Sand the area around the hole and wait one minute [1]."), evidence(), judge, VerifyConfig())
    assert [(c.start, c.end) for c in out.citations] == [(10.0, 20.0)] and out.claims[0].checks["answers"] == 0.9
    assert not any("hole. Wait one minute." in text for text in judge.asked if "\nClaim: " not in text)


def test_a_claim_joining_three_steps_cites_the_three_and_one_held_by_two_of_them_is_read_as_those_two():
    steps = [Segment(8.8, 13.2, "Use two tire levers to pry the tire off the rim."),
             Segment(13.2, 18.0, "Pull out the inner tube and pump some air into it."),
             Segment(18.0, 23.4, "Rough up the area around the hole with sandpaper."),
             Segment(23.4, 40.0, "Wait one minute until the glue turns dull.")]
    three = Evidence(Hit("v1", "/videos/tire.mp4", 8.8, 40.0, 1.0, ""), steps)
    claim = "Pry the tire off with tire levers, pull out the inner tube, pump air into it and rough up the hole."
    out = verify(Answer("how do I fix a flat", f"{claim} [1]", [three.citation], "test"), [three], None, VerifyConfig())
    assert [(c.start, c.end) for c in out.citations] == [(8.8, 23.4)]   # not a pair of them, nor the 31-s excerpt
    run = point([Claim(claim, [0])], [three.citation], [three])[0]
    assert run.holding(14.0, 22.0).text == f"{steps[1].text} {steps[2].text}" and run.holding(9.0, 23.0) is run


def test_a_sentence_that_only_points_at_the_evidence_is_no_claim():
    from videorag.verify.claims import says_something

    for filler in ("This is mentioned in at about 0:18 [2].", "This is mentioned in moment [3].",
                   "You can see this in the video at 1:02–1:10.", "As shown in the clip.",
                   "This is mentioned in at around 0:18.", "This is explained in moment 2, starting at 0:18.",
                   "It is mentioned in the first moment.", "See clip #3 at approximately 2:10."):
        assert not says_something(filler), filler
    for claim in ("Yes [1].", "No, not yet.", "Hold it for thirty seconds [2].", "The video shows how to sand it.",
                  "Heat the water to 94 degrees [1].", "About 4 minutes [1].", "Sand the area around the hole.",
                  "The second coat goes on after four hours.", "Start the engine first."):
        assert says_something(claim), claim
    out = verify(answer("Sand the area around the hole [1]. This is mentioned at about 0:12 [1]."), evidence(),
                 SupportJudge(), VerifyConfig())
    assert [c.text for c in out.claims] == ["Sand the area around the hole."] and not out.abstained
    assert out.answer == "Sand the area around the hole [1]." and len(out.citations) == 1
    assert verify(answer("This is mentioned in moment [1]."), evidence(), SupportJudge(), VerifyConfig()).abstained


def test_a_numbered_lists_item_numbers_are_no_claims():
    claims = split_claims("To redo them: 1. Clean the grout [1]. 2. Apply new grout [2]. Heat it to 94.", moments=2)
    assert [c.text for c in claims] == ["To redo them:", "Clean the grout.", "Apply new grout.", "Heat it to 94."]
    assert [c.citations for c in claims] == [[0, 1], [0], [1], [1]]
