"""Answerability (`videorag.answerability`): its signals on a corpus built by the test, the
calibrated model as data, and the stage in `ask` (an off-topic question is refused before the
judge or the generator runs)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tests.judge_double import KeywordJudge
from videorag.answerability import Answerability, Weights, load
from videorag.answerability.model import Logistic
from videorag.answerability.signals import CHEAP, FULL, JUDGED, cheap_signals, judged_signal
from videorag.config import JudgeConfig, RerankConfig, SearchConfig
from videorag.embed.hashing import HashingEmbedder
from videorag.errors import ConfigError
from videorag.methods import create_method
from videorag.rerank import RERANKERS
from videorag.retrieve import Corpus, Level, Searcher
from videorag.retrieve.base import Query

SEGMENTS = [(0, 0.0, 5.0, "Boil water in a kettle."), (0, 5.0, 9.0, "Steep the tea bag for three minutes."),
            (1, 0.0, 4.0, "Remove the wheel from the bike."), (1, 4.0, 8.0, "Patch the inner tube with glue."),
            (2, 0.0, 6.0, "Sand the wall and apply primer.")]


def corpus(embedder) -> Corpus:
    owner = np.array([s[0] for s in SEGMENTS])
    texts = [s[3] for s in SEGMENTS]
    level = Level.build(owner, [s[1] for s in SEGMENTS], [s[2] for s in SEGMENTS], texts, embedder.embed(texts))
    whole = [" ".join(t for o, t in zip(owner, texts) if o == v) for v in range(3)]
    videos = Level.build(np.arange(3), np.zeros(3), np.full(3, 9.0), whole, embedder.embed(whole))
    return Corpus(["tea", "bike", "wall"], ["/t.mp4", "/b.mp4", "/w.mp4"], level, videos, videos)


def signals_for(question: str):
    embedder = HashingEmbedder()
    searcher, config = Searcher(corpus(embedder), embedder), SearchConfig()
    qc = searcher.context(Query(question), config)
    hit = searcher.search(question, create_method("textvideorag", config), config, 1, False, None, qc)[0]
    return cheap_signals(qc, searcher.corpus.row[hit.video_id], hit.start, hit.end, hit.text)


def test_signals_say_how_much_of_the_question_the_moment_and_the_collection_hold():
    on = signals_for("how do I steep the tea bag")
    assert on.coverage == 1.0 and on.known == 1.0 and on.relevance > 0.3
    off = signals_for("what is the capital of France")
    assert off.known == 0.0 and off.coverage == 0.0 and off.relevance < on.relevance
    half = signals_for("which brand of glue patches the inner tube")
    assert 0.0 < half.coverage < 1.0 and 0.0 < half.known < 1.0   # "brand" is said nowhere
    assert signals_for("how do I do it?").coverage == 1.0   # no content word: nothing can be missing


def test_the_judge_signal_is_its_best_judgement_of_the_query(monkeypatch):
    monkeypatch.setitem(RERANKERS._entries, "keyword-judge", "tests.judge_double:KeywordJudge")
    monkeypatch.setattr(KeywordJudge, "word", "glue")
    embedder = HashingEmbedder()
    config = SearchConfig(judge=JudgeConfig(reranker=RerankConfig(backend="keyword-judge")))
    searcher = Searcher(corpus(embedder), embedder)
    qc = searcher.context(Query("how do I patch a tube"), config)
    assert math.isnan(judged_signal([]))   # not judged
    judged = create_method("textvideorag", config, judged=True).rank(qc).judged   # what judging returns
    assert judged_signal(judged) == pytest.approx(0.9)
    assert "Patch the inner tube with glue." in {c.text for c in judged}, [c.text for c in judged]


def weights(offtopic=0.2, threshold=0.5) -> Weights:
    """P(answerable) grows with coverage alone (cheap), with the judge alone (judged), with the
    generator's own coverage question alone (full)."""
    cheap = Logistic(CHEAP, [0.0] * 3, [1.0] * 3, [0.0, 8.0, 0.0], -4.0, threshold)
    judged = Logistic(JUDGED, [0.0] * 4, [1.0] * 4, [0.0, 0.0, 0.0, 8.0], -4.0, threshold)
    full = Logistic(FULL, [0.0] * 5, [1.0] * 5, [0.0, 0.0, 0.0, 0.0, 8.0], -4.0, threshold)
    return Weights(cheap, judged, full, offtopic)


def test_the_stage_refuses_off_topic_from_retrieval_and_decides_the_rest_with_the_judge():
    stage = Answerability(weights())
    embedder = HashingEmbedder()
    searcher, config = Searcher(corpus(embedder), embedder), SearchConfig()
    qc = searcher.context(Query("what is the capital of France"), config)
    hit = searcher.search(qc.query.text, create_method("textvideorag", config), config, 1, False, None, qc)[0]
    off = stage.screen(qc, hit, hit.text)
    assert off.stage == "off-topic" and not off.answerable and off.probability < 0.2
    assert stage.screen(qc, None, "").stage == "off-topic"   # nothing retrieved at all
    qc = searcher.context(Query("how do I patch the inner tube"), config)
    hit = searcher.search(qc.query.text, create_method("textvideorag", config), config, 1, False, None, qc)[0]
    screened = stage.screen(qc, hit, hit.text)
    assert screened.stage == "cheap" and screened.answerable
    assert stage.decide(screened, []) == screened   # no judge read anything: retrieval decides
    steps = [type("Step", (), {"score": 0.1})()]
    judged = stage.decide(screened, steps)
    assert judged.stage == "judged" and not judged.answerable   # the judge found no step that answers
    assert Answerability(weights(), threshold=0.0).decide(screened, steps).answerable   # --abstain-below 0
    full = stage.decide(screened, steps, lambda: 0.95)   # the generator is sure the moments hold it
    assert full.stage == "full" and full.answerable and full.signals.covered == 0.95
    assert stage.decide(screened, steps, lambda: None).stage == "judged"   # a generator that cannot tell


def test_weights_are_data_that_round_trip_and_fit(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 3))
    y = x[:, 1] + 0.3 * rng.normal(size=200) > 0
    model = Logistic.fit(CHEAP, x, y)
    assert model.coef[1] > abs(model.coef[0]) and model.coef[1] > abs(model.coef[2])
    assert ((model.probability(x) >= 0.5) == y).mean() > 0.85
    path = weights().save(tmp_path / "w.json")
    again = load(path)
    assert again.to_dict() == weights().to_dict()
    (tmp_path / "bad.json").write_text(json.dumps({"cheap": {}}))
    with pytest.raises(ConfigError, match="refit"):
        load(tmp_path / "bad.json")


def test_the_shipped_weights_load_and_refuse_off_topic_below_their_decision():
    shipped = load()
    assert shipped.cheap.features == CHEAP and shipped.judged.features == JUDGED
    assert shipped.offtopic <= shipped.cheap.threshold
    assert shipped.fitted_on.get("rows", 0) > 100   # fitted on real data (benchmarks/answerability)


def test_refitting_the_checked_in_signals_gives_the_shipped_weights_back():
    """Training and serving cannot drift apart unnoticed: the fit of `benchmarks answerability
    --refit`, run on the signals checked in beside it, reproduces weights.json."""
    import gzip

    from benchmarks.bench_answerability import SIGNALS, fit

    refit, _ = fit(json.loads(gzip.open(SIGNALS, "rt").read()))
    shipped = load()
    assert refit.offtopic == shipped.offtopic
    for name in ("cheap", "judged", "full"):
        mine, theirs = refit.model(name), shipped.model(name)
        assert mine.features == theirs.features and mine.threshold == theirs.threshold
        for field in ("mean", "scale", "coef"):
            assert np.allclose(getattr(mine, field), getattr(theirs, field), rtol=1e-9), (name, field)
        assert math.isclose(mine.intercept, theirs.intercept, rel_tol=1e-9)


def test_assessing_reads_the_top_moment_and_gathers_nothing_for_an_off_topic_question():
    """`answerability.read.assess` is the one path from a question to its verdict (`ask` and the
    fit's collection take it): off-topic is refused before the method gathers evidence."""
    from videorag.answerability.read import assess
    from videorag.config import Config
    from videorag.methods.evidence import EvidenceRequest

    embedder = HashingEmbedder()
    searcher, config = Searcher(corpus(embedder), embedder), Config()
    plain = create_method("textvideorag", config.search)
    strict = Answerability(weights())
    asked = []
    read = assess(strict, EvidenceRequest("what is the capital of France", searcher, config, plain), plain,
                  lambda evidence: asked.append(evidence))
    assert read.verdict.stage == "off-topic" and read.evidence == [] and read.top is not None and not asked
    read = assess(strict, EvidenceRequest("how do I steep the tea bag", searcher, config, plain), plain,
                  lambda evidence: asked.append(evidence) or 0.9)
    assert read.verdict.stage != "off-topic" and read.evidence and asked == [read.evidence]
    assert read.verdict.signals.covered == 0.9 and read.top.video_id == "tea"
