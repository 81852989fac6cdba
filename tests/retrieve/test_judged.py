"""Judged search (`videorag.methods.judged`) on a corpus built by the test, with a judge double
registered like any reranker (`tests.judge_double`): it says yes to passages holding a word."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tests.judge_double import KeywordJudge
from videorag.config import JudgeConfig, RerankConfig, SearchConfig
from videorag.embed.hashing import HashingEmbedder
from videorag.methods import create_method
from videorag.methods.judged import StepCandidate, _own_vectors, on_screen, with_vectors
from videorag.rerank import RERANKERS
from videorag.retrieve import Corpus, Level, Searcher
from videorag.retrieve.base import Candidate

# a recording whose chapter heading shares the question's words, the step that answers does not
GARDEN = [
    ("welcome to the stream, today tomatoes, peppers and frost protection.", 0.0),
    ("chapter one, how to ripen green tomatoes before frost.", 10.0),
    ("pick every fruit that has started to blush and leave it on the kitchen counter.", 20.0),
    ("keep them stem side down, out of the fridge.", 30.0),
    ("chapter two, peppers.", 40.0),
]
KETTLE = [("how to ripen tomatoes, a quick tip.", 0.0), ("tomatoes like warm days.", 8.0)]
ANSWER_WORD = "blush"


@pytest.fixture(autouse=True)
def judge_double(monkeypatch):
    monkeypatch.setitem(RERANKERS._entries, "keyword-judge", "tests.judge_double:KeywordJudge")
    monkeypatch.setattr(KeywordJudge, "word", ANSWER_WORD)
    KeywordJudge.read = []


def corpus(embedder, garden=GARDEN) -> Corpus:
    rows = [(0, t, t + 9.5, text) for text, t in garden] + [(1, t, t + 7.5, text) for text, t in KETTLE]
    owner = np.array([r[0] for r in rows])
    texts = [r[3] for r in rows]
    segments = Level.build(owner, [r[1] for r in rows], [r[2] for r in rows], texts, embedder.embed(texts))
    whole = [" ".join(t for t, _ in garden), " ".join(t for t, _ in KETTLE)]
    videos = Level.build(np.arange(2), np.zeros(2), np.array([50.0, 16.0]), whole, embedder.embed(whole))
    return Corpus(["garden", "tip"], ["/garden.mp4", "/tip.mp4"], segments, segments, videos)


def search(query: str, judged: bool, moments: bool = False, garden=GARDEN, timings=None, **judge):
    embedder = HashingEmbedder()
    config = SearchConfig(judge=JudgeConfig(reranker=RerankConfig(backend="keyword-judge"), **judge))
    method = create_method("textvideorag", config, judged=judged)
    return Searcher(corpus(embedder, garden), embedder).search(query, method, config, 5, moments, timings)


QUESTION = "how do I ripen green tomatoes before frost"


def test_the_judge_cites_the_step_that_answers_not_the_heading():
    plain = search(QUESTION, judged=False)[0]
    assert plain.video_id == "garden" and plain.start < 20   # retrieval alone: the heading wins
    timings = {}
    hit = search(QUESTION, judged=True, cite_context=0, timings=timings)[0]
    assert hit.video_id == "garden" and ANSWER_WORD in hit.text
    assert 19 < hit.start < hit.end <= 30   # one step, the sentence that answers
    assert timings["judge"] >= 0
    # the judge read steps, one sentence each, not whole segments or moments
    assert all(t.count(".") <= 1 for t in KeywordJudge.read) and len(KeywordJudge.read) <= JudgeConfig.candidates


def test_a_judged_step_is_cited_with_its_context_sentences():
    hit = search(QUESTION, judged=True, cite_context=1)[0]
    assert ANSWER_WORD in hit.text and "chapter one" in hit.text and "stem side down" in hit.text
    assert hit.start < 20 and hit.end > 30


def test_the_judge_reads_marked_context_when_asked():
    search(QUESTION, judged=True, read_context=1)
    answer = next(t for t in KeywordJudge.read if t.startswith("(before: chapter one"))
    assert ANSWER_WORD in answer and "(after: keep them" in answer


def test_a_video_with_a_judged_answer_overtakes_one_without():
    # the tip video shares the question's words but never answers; the garden video answers
    query = "a quick tip to ripen tomatoes on the counter"
    assert search(query, judged=False)[0].video_id == "tip"
    hits = search(query, judged=True, video_weight=1.0)
    assert hits[0].video_id == "garden" and ANSWER_WORD in hits[0].text
    assert search(query, judged=True, video_weight=0.0)[0].video_id == "tip"   # retrieval's order kept


def test_judge_weight_zero_keeps_retrieval_order_of_steps():
    hit = search(QUESTION, judged=True, weight=0.0, cite_context=0)[0]
    assert ANSWER_WORD not in hit.text


def test_a_step_the_judge_cannot_read_counts_as_an_average_judgement():
    unreadable = [(t.replace("chapter one,", "??? chapter one,"), s) for t, s in GARDEN]
    hit = search(QUESTION, judged=True, garden=unreadable, cite_context=0, each_video=False)[0]  # 5 garden steps
    assert ANSWER_WORD in hit.text   # judged yes beats the unjudged heading (the mean of 0.9 and 0.1s)


def test_moments_list_the_judged_steps_first_then_the_rest():
    hits = search(QUESTION, judged=True, moments=True, cite_context=0)
    assert ANSWER_WORD in hits[0].text
    assert len({(h.video_id, h.start) for h in hits}) == len(hits)


def test_one_candidate_or_none_is_not_judged():
    assert search(QUESTION, judged=True, candidates=1)[0].start < 20
    assert KeywordJudge.read == []


def test_the_judge_reads_what_the_screen_shows_during_the_step_not_a_heading_that_stays_up():

    embedder = HashingEmbedder()
    shown = [(t, "on screen: CHAPTER ONE: TOMATOES | said: …") for t in range(0, 50, 2)]
    shown += [(22, "on screen: blush = pick it | said: pick every fruit"), (23, "said: only speech")]
    c = corpus(embedder)
    texts = [t for _, t in shown]
    c.captions = Level.build(np.zeros(len(shown), np.int32), [t for t, _ in shown], [t for t, _ in shown],
                                         texts, embedder.embed(texts))
    screen = on_screen(SimpleNamespace(corpus=c), 0)
    assert screen(20.0, 29.5) == "blush = pick it"   # the step's own slide, not the heading shown all along
    assert screen(40.0, 49.5) == ""
    plain = corpus(embedder)
    assert on_screen(SimpleNamespace(corpus=plain), 0)(20.0, 29.5) == ""   # no captions: nothing


def test_a_steps_own_sentence_similarity_lifts_it_before_the_judge_reads():
    embedder = HashingEmbedder()
    query = "which tomatoes do I pick when they start to blush"
    qc = SimpleNamespace(searcher=SimpleNamespace(embedder=embedder), vector=lambda: embedder.embed([query])[0],
                         corpus=SimpleNamespace(videos=SimpleNamespace(vectors=np.zeros((1, embedder.dim))),
                                                segments=corpus(embedder).segments,
                                                is_multilingual=lambda video: False))

    def step(text):
        c = Candidate(0, "step", 0.0, 1.0, 0.0, "text", text)
        return StepCandidate(c, c, text, own=0.5, video=1.0)
    found = with_vectors(qc, [step(GARDEN[4][0]), step(GARDEN[2][0])])
    assert found[1].own > found[0].own and found[1].score(0.5) > found[0].score(0.5)
    assert np.isclose(found[1].own, 2 / 3) and np.isclose(found[0].own, 1 / 3)   # a third of `own` is the sentence's


def test_each_judged_video_has_its_best_step_among_the_candidates():
    from types import SimpleNamespace

    from videorag.methods.judged import _chosen

    def step(video, score):
        return SimpleNamespace(cited=SimpleNamespace(video=video), score=lambda share, s=score: s)

    found = [step(0, s) for s in (0.9, 0.8, 0.7, 0.6, 0.55)] + [step(1, 0.3), step(2, 0.2), step(2, 0.1)]
    assert [s.score(0) for s in _chosen(found, 5, 0.5, False)] == [0.9, 0.8, 0.7, 0.6, 0.55]
    assert [(s.cited.video, s.score(0)) for s in _chosen(found, 5, 0.5, True)] == [
        (0, 0.9), (0, 0.8), (0, 0.7), (1, 0.3), (2, 0.2)
    ]


class Counted(HashingEmbedder):
    """The hashing embedder, keeping every text it was asked to embed."""

    def __init__(self):
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts += list(texts)
        return super().embed(texts)


@pytest.mark.parametrize("context", [False, True])
def test_a_step_that_is_a_whole_segment_takes_the_index_vector_once_checked(context):
    embedder, part = Counted(), "pick every fruit that has started to blush"   # a sentence cut from a segment
    texts = [GARDEN[2][0], GARDEN[3][0], GARDEN[4][0], part]
    made = corpus(HashingEmbedder())
    if context:   # an index whose segment vectors embedded their neighbours too (`ingest.segment_context`)
        level = made.segments
        said = [" ".join(level.texts[max(i - 1, 0) : i + 2]) for i in range(len(level.texts))]
        made.segments = Level.build(level.owner, level.starts, level.ends, level.texts, HashingEmbedder().embed(said))
    qc = SimpleNamespace(searcher=SimpleNamespace(embedder=embedder), vector=lambda: HashingEmbedder().embed(["q"])[0],
                         corpus=made)
    found = [StepCandidate(c := Candidate(0, "step", 0.0, 1.0, 0.0, "text", t), c, t, 0.5, 1.0) for t in texts]
    embedder.texts = []
    vectors, _ = _own_vectors(qc, found)
    assert np.allclose(vectors, HashingEmbedder().embed(texts))   # the same vectors either way
    # embedded: the cut sentence and the first whole segment (the check); the rest read from the index
    # unless the check finds the index embedded something else
    assert sorted(embedder.texts) == sorted(texts if context else [GARDEN[2][0], part])
