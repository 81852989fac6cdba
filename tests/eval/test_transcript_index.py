"""The bench's `best` method, ranked through the registry over a transcript corpus: the
centrality re-ranking and the question phrasing."""
from __future__ import annotations

import numpy as np
import pytest

from videorag.config import BestConfig, SearchConfig
from videorag.embed.hashing import HashingEmbedder
from videorag.errors import ConfigError
from videorag.eval.transcripts import TranscriptCorpusConfig, transcript_corpus
from videorag.methods import create_method
from videorag.retrieve import Query, Searcher
from videorag.retrieve.bm25 import BM25

GARDEN = "seedlings in rich soil, water them every morning, full sunlight, stake and prune the vines"
TRANSCRIPTS = {
    # a short off-topic video matches the query best; four on-topic videos share their vocabulary
    "paint": "grow tomatoes in a painting, acrylic on canvas, brush and palette",
    **{f"garden{i}": f"how to grow tomatoes, {GARDEN} {extra}" for i, extra in
       enumerate(["then harvest", "mulch helps", "compost first", "pick them red"])},
    "bread": "how to bake sourdough bread, feed the starter and knead the dough",
}


def rank(query: Query, k: int = 10, **best) -> list[str]:
    embedder = HashingEmbedder()
    config = SearchConfig(best=BestConfig(**best))
    searcher = Searcher(transcript_corpus(TRANSCRIPTS, embedder, TranscriptCorpusConfig(segment_words=8)), embedder)
    return searcher.rank_ids(query, create_method("best", config), config, k)


def test_centrality_lifts_the_typical_video_over_a_keyword_match():
    assert rank(Query("grow tomatoes"), centrality_weight=0.0, question_weight=0.0)[0] == "paint"
    ranked = rank(Query("grow tomatoes", "How to Grow Tomatoes"), k=6)
    assert ranked[0].startswith("garden") and ranked.index("paint") >= 4
    assert sorted(ranked) == sorted(TRANSCRIPTS)


def test_doc_vectors_are_unit_length():
    bm25 = BM25(list(TRANSCRIPTS.values()))
    vectors = bm25.doc_vectors(np.arange(len(TRANSCRIPTS)))
    assert np.allclose(np.asarray(vectors.multiply(vectors).sum(axis=1)).ravel(), 1.0)


def test_bad_settings_are_refused():
    with pytest.raises(ConfigError):
        BestConfig(rerank_depth=0)
    with pytest.raises(ConfigError):
        BestConfig(centrality_weight=-1)
    with pytest.raises(ConfigError):
        TranscriptCorpusConfig(intro_words=2)
