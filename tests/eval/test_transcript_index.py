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
from videorag.lexical.bm25 import BM25

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


def test_evidence_anywhere_in_a_long_video_lifts_it():
    """A specific question answered in the middle of a long video about something else: its
    whole-transcript and opening scores are diluted, its best segment is not."""
    filler = " ".join(f"salmon fillet lemon butter pan heat oil step{i} plate" for i in range(30))
    transcripts = {
        "long": f"how to cook salmon in a pan, {filler} sharpen the knife on the whetstone at fifteen degrees {filler}",
        "short": "knife review, this knife has a nice handle and sharp steel, whetstone sold separately",
        **{f"other{i}": f"how to fold paper cranes, crease the square sheet {i}" for i in range(4)},
    }
    embedder = HashingEmbedder()
    searcher = Searcher(transcript_corpus(transcripts, embedder, TranscriptCorpusConfig(segment_words=12)), embedder)

    def first(weight: float) -> str:
        config = SearchConfig(best=BestConfig(evidence_weight=weight, centrality_weight=0.0))
        return searcher.rank_ids(Query("what angle on the whetstone for the knife, fifteen degrees"),
                                 create_method("best", config), config, 3)[0]

    assert first(0.0) == "short" and first(2.0) == "long"
