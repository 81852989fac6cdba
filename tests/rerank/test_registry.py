"""The reranker registries: every registered name is either built by `create_reranker` (a scoring
reranker) or refused by it with a domain error naming the valid choices (a selecting reranker,
which a method builds itself); each registry's `kind` is its classes' `kind`."""
from __future__ import annotations

import numpy as np
import pytest

from videorag.config import RerankConfig
from videorag.errors import UnknownBackendError, VideoRAGError
from videorag.rerank import (RERANKERS, SCORING, SELECTING, SELECTORS, create_reranker, kind_of,
                             scoring_names, shared_reranker)
from videorag.retrieve import Candidate


def test_every_scoring_name_is_created_by_create_reranker():
    assert RERANKERS.kind == SCORING and RERANKERS.names()
    for name in RERANKERS.names():
        reranker = create_reranker(RerankConfig(backend=name), weight=0.25)
        assert (reranker.name, reranker.kind, reranker.weight) == (name, SCORING, 0.25)
        assert kind_of(name) == SCORING
    assert create_reranker(RerankConfig(backend="auto")).name in RERANKERS.names()
    assert scoring_names() == sorted([*RERANKERS.names(), "auto"])


@pytest.mark.parametrize("name", SELECTORS.names())
def test_a_selecting_name_is_refused_by_create_reranker_naming_the_valid_ones(name):
    assert kind_of(name) == SELECTING and name not in RERANKERS.names()
    for make in (lambda: create_reranker(RerankConfig(backend=name)),
                 lambda: shared_reranker(RerankConfig(backend=name), None)):
        with pytest.raises(UnknownBackendError) as refused:
            make()
        message = str(refused.value)
        assert isinstance(refused.value, VideoRAGError) and SELECTING in message and "rag-adapter" in message
        assert all(valid in message for valid in scoring_names())
    selector = SELECTORS.create(name)   # its own registry builds it, with its defaults
    assert (selector.name, selector.kind) == (name, SELECTORS.kind) == (name, SELECTING)


def test_the_two_registries_do_not_share_a_name_and_unknown_names_list_the_choices():
    assert not set(RERANKERS.names()) & set(SELECTORS.names())
    assert kind_of("nope") is None
    with pytest.raises(UnknownBackendError, match="cross-encoder, e5, llm"):
        create_reranker(RerankConfig(backend="nope"))


def test_dual_mmr_from_its_registry_fuses_and_truncates():
    selector = SELECTORS.create("dual-mmr", k=2)
    found = [Candidate(0, "frame", t, t, s, "frame") for t, s in ((1.0, 0.2), (2.0, 0.9), (3.0, 0.5))]
    chosen = selector.rerank(None, found)
    assert [c.start for c in chosen] == [2.0, 3.0] and np.isclose(chosen[0].score, 1.0)
