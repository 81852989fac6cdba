"""Moment reranking without an import circle: `text_moments` rescores a video's moments with the
reranker its caller passes (retrieval never imports `videorag.rerank`); the methods pass the one
`MomentConfig.reranker` names (`moment_reranker_for`), so `search --moment-reranker NAME` still rescores
each video's moments, and a name that is no scoring reranker is a domain error, not a crash."""
from __future__ import annotations

import numpy as np
import pytest

from tests.retrieve.test_moments import corpus
from videorag.config import CarveConfig, MomentConfig, RerankConfig, SearchConfig
from videorag.embed.hashing import HashingEmbedder
from videorag.errors import UnknownBackendError
from videorag.methods import create_method
from videorag.rerank import RERANKERS, moment_reranker_for
from videorag.rerank.base import ScoringReranker
from videorag.retrieve import Searcher
from videorag.retrieve.moments import text_moments

QUERY = "sharpen the chisel bevel"


class EarliestFirst(ScoringReranker):
    """A scoring double that prefers a video's earliest moment and records what it saw."""

    name = "earliest-first"
    seen: list = []

    def score(self, qc, candidates):
        EarliestFirst.seen.extend(candidates)
        return np.array([-c.start for c in candidates], np.float64)


def _searcher():
    embedder = HashingEmbedder()
    return Searcher(corpus(embedder), embedder)


def test_text_moments_applies_the_reranker_it_is_given_and_only_that():
    config = SearchConfig(moments=MomentConfig(reranker="e5"))   # a name alone reranks nothing here
    qc = _searcher().context(QUERY, config)
    plain = text_moments(qc, 0)
    assert len(plain) >= 3 and [m.start for m in plain] != sorted(m.start for m in plain)
    reranked = text_moments(qc, 0, reranker=EarliestFirst(weight=1.0))
    assert [m.start for m in reranked] == sorted(m.start for m in plain)
    assert {(m.start, m.end) for m in reranked} == {(m.start, m.end) for m in plain}
    assert all(m.source == "text+earliest-first" for m in reranked)


def test_the_reranker_comes_from_the_moment_config_with_the_rerank_model():
    assert moment_reranker_for(SearchConfig(), None) is None
    config = SearchConfig(moments=MomentConfig(reranker="cross-encoder", reranker_weight=0.3),
                          carve=CarveConfig(reranker=RerankConfig(backend="auto", model="/models/ce")))
    reranker = moment_reranker_for(config, None)
    assert (reranker.name, reranker.weight, reranker.config.model) == ("cross-encoder", 0.3, "/models/ce")


def test_search_with_a_moment_reranker_rescores_each_videos_moments(monkeypatch):
    monkeypatch.setitem(RERANKERS._entries, EarliestFirst.name, f"{__name__}:EarliestFirst")
    EarliestFirst.seen = []
    config = SearchConfig(moments=MomentConfig(reranker=EarliestFirst.name, reranker_weight=1.0))
    hits = _searcher().search(QUERY, create_method("textvideorag", config), config, 5, moments=True)
    lecture = [h.start for h in hits if h.video_id == "lecture"]
    assert EarliestFirst.seen and len(lecture) >= 3
    assert lecture == sorted(lecture)   # one video's moments: the reranker's order


def test_search_with_a_selecting_reranker_for_moments_is_a_domain_error():
    config = SearchConfig(moments=MomentConfig(reranker="dual-mmr"))
    with pytest.raises(UnknownBackendError, match="choose one of: auto, cross-encoder, e5, llm"):
        _searcher().search(QUERY, create_method("textvideorag", config), config, 5, moments=True)


@pytest.mark.parametrize("method", ["textvideorag", "bm25", "dense"])
def test_plain_search_cites_the_best_of_all_moments_and_computes_only_that(method):
    searcher, config = _searcher(), SearchConfig()
    hits = searcher.search(QUERY, create_method(method, config), config, 5)
    qc = searcher.context(QUERY, config)
    for hit in hits:
        best = text_moments(qc, searcher.corpus.video_ids.index(hit.video_id))[0]
        assert (hit.start, hit.end, hit.text) == (best.start, best.end, best.text)
    qc = searcher.context(QUERY, config)
    found = searcher.found(qc, create_method(method, config), 5)
    assert all(len(f.moments) == 1 for f in found)


def test_plain_search_with_a_moment_reranker_lets_it_see_every_moment(monkeypatch):
    monkeypatch.setitem(RERANKERS._entries, EarliestFirst.name, f"{__name__}:EarliestFirst")
    EarliestFirst.seen = []
    config = SearchConfig(moments=MomentConfig(reranker=EarliestFirst.name, reranker_weight=1.0))
    searcher = _searcher()
    hits = searcher.search(QUERY, create_method("textvideorag", config), config, 5)
    row = searcher.corpus.video_ids.index("lecture")
    lecture = [m for m in EarliestFirst.seen if m.video == row]
    cited = next(h for h in hits if h.video_id == "lecture")
    assert len(lecture) >= 3 and cited.start == min(m.start for m in lecture)  # chosen among all of them
