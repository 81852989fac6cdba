"""RAG-Adapter's Dual Reranker and MMR, and the method registry."""
from __future__ import annotations

import numpy as np
import pytest

from videorag.errors import UnknownBackendError
from videorag.methods import METHODS, create_method
from videorag.rerank.dual import dual_sum, mmr
from videorag.retrieve import Candidate


def test_dual_sum_adds_normalised_scores_per_frame():
    frames = [Candidate(0, "frame", t, t, s, "frame") for t, s in ((1.0, 0.9), (2.0, 0.5), (3.0, 0.1))]
    captions = [Candidate(0, "frame", t, t, s, "caption", f"c{t}") for t, s in ((2.0, 30.0), (3.0, 10.0))]
    pooled = dual_sum(frames + captions)
    assert [(c.start, round(c.score, 3)) for c in pooled] == [(2.0, 1.5), (1.0, 1.0), (3.0, 0.0)]
    assert pooled[0].source == "caption+frame" and pooled[0].text == "c2.0"


def test_mmr_trades_relevance_for_diversity():
    vectors = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    scores = np.array([1.0, 0.95, 0.6])
    assert mmr(scores, vectors, 2, theta=1.0) == [0, 1]          # relevance only
    assert mmr(scores, vectors, 2, theta=0.7) == [0, 2]          # the duplicate is penalised
    assert mmr(scores, vectors, 5, theta=0.7) == [0, 2, 1]       # K caps at the pool size


def test_redundancy_is_the_maximum_similarity_to_the_chosen():
    vectors = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.0, 1.0]])
    scores = np.array([1.0, 0.9, 0.95, 0.2])
    # after 0 and 1, item 2 is 0.8-similar to 1 (max), item 3 is new: MMR takes 3 with theta 0.5
    assert mmr(scores, vectors, 3, theta=0.5) == [0, 1, 3]


def test_every_registered_method_builds_and_unknown_names_list_the_choices():
    for name in METHODS.names():
        assert create_method(name).name == name
    with pytest.raises(UnknownBackendError, match="rag-adapter"):
        create_method("nope")
