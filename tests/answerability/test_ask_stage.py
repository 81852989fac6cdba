"""The answerability stage inside `ask` / `ask_stream`: an off-topic question is refused before the
judge or the generator runs; an answerable one goes through; odd questions get an answer or a
refusal, never a crash."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.judge_double import KeywordJudge
from tests.reliability.media import tiny_videos
from videorag import Config, VideoRAG
from videorag.config import RerankConfig
from videorag.embed.hashing import HashingEmbedder
from videorag.errors import IndexError_
from videorag.rerank import RERANKERS
from videorag.types import Answer
from videorag.languages import not_covered
from videorag.verify import ABSTAINED


class CountingGenerator:
    """Writes the first transcript line of its evidence, citing it; counts its calls."""

    name = "counting"

    def __init__(self):
        self.calls = 0

    def generate(self, question, evidence):
        self.calls += 1
        return Answer(question, f"{evidence[0].segments[0].text} [1].", [evidence[0].citation], self.name)


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("stage")
    tiny_videos(root / "library", 4, seconds=6)
    VideoRAG(root / "index", Config(), embedder=HashingEmbedder()).add([root / "library"])
    return root / "index"


@pytest.fixture()
def rag(index, monkeypatch):
    monkeypatch.setitem(RERANKERS._entries, "keyword-judge", "tests.judge_double:KeywordJudge")
    monkeypatch.setattr(KeywordJudge, "word", "kettle")
    KeywordJudge.read = []
    config = Config()
    config.search.judge.reranker = RerankConfig(backend="keyword-judge")
    config.search.judge.enabled = True
    return VideoRAG(index, config, embedder=HashingEmbedder(), generator=CountingGenerator())


@pytest.mark.parametrize("question", ["What is the capital of France?", "¿Cuál es la capital de Francia?",
                                      "Qui a gagné la coupe du monde en 2018 ?"])
def test_an_off_topic_question_is_refused_before_the_judge_or_the_generator_runs(rag, question):
    answer = rag.ask(question)
    assert answer.abstained and answer.answer == not_covered(question) and answer.citations == []
    assert answer.answerable is not None and answer.answerable < 0.5
    assert rag.prepare(question).verdict.stage == "off-topic"
    assert KeywordJudge.read == [] and rag.generator.calls == 0


def test_an_answerable_question_is_judged_and_answered_with_its_probability(rag):
    answer = rag.ask("how do I boil water in a kettle")
    assert not answer.abstained and rag.generator.calls == 1 and KeywordJudge.read
    assert answer.answerable is not None and answer.citations[0].path.endswith("video-0.mp4")
    asked = rag.prepare("how do I boil water in a kettle")
    assert asked.verdict.stage in ("judged", "full") and asked.verdict.signals.judge == pytest.approx(0.9)


def test_the_stream_refuses_the_same_way(rag):
    pieces = list(rag.ask_stream("What is the capital of France?"))
    assert pieces[0] == ABSTAINED and pieces[-1].abstained and rag.generator.calls == 0


def test_the_stage_can_be_switched_off_and_its_threshold_moved(rag):
    rag.config.generate.verify.answerability = False
    rag.config = rag.config   # made anew from the settings
    assert rag.prepare("What is the capital of France?").verdict is None
    assert rag.ask("What is the capital of France?").answerable is None


@pytest.mark.parametrize("question", ["the of and to a", "???", "what videos do you have?", "tube " * 300,
                                      "how do I boil water in a kettle " + "x" * 600])
def test_odd_questions_get_an_answer_or_a_refusal(rag, question):
    answer = rag.ask(question)
    assert answer.answer and (answer.abstained or answer.citations)


def test_a_question_too_long_to_be_one_is_refused_in_words(rag):
    with pytest.raises(IndexError_, match="characters long"):
        rag.ask("how do I fix it " * 400)
