"""The collection's fusion constants merged from shards' statistics equal those computed over
the whole collection's arrays."""

import numpy as np
import pytest

from videorag.retrieve.fusion import alpha_fuse
from videorag.retrieve.scale import candidate_moments, exact_moments, merged

ALPHA = 0.6


def parts(n: int, cuts: list[int], seed: int = 0):
    rng = np.random.default_rng(seed)
    dense = rng.normal(0.3, 0.1, n).astype(np.float32)
    lexical = np.where(rng.random(n) < 0.3, rng.gamma(2.0, 3.0, n), 0).astype(np.float32)
    bounds = list(zip([0, *cuts], [*cuts, n]))
    return dense, lexical, bounds


@pytest.mark.parametrize("cuts", [[], [300], [100, 550, 700]])
def test_exact_levels_merge_to_the_collection_range_and_deviation(cuts):
    dense, lexical, bounds = parts(1000, cuts)
    scale = merged([exact_moments(dense[a:b], lexical[a:b]) for a, b in bounds], ALPHA, 200)
    assert scale.dense == (float(dense.min()), float(dense.max()))
    assert scale.lexical == (float(lexical.min()), float(lexical.max()))
    assert scale.std == pytest.approx(float(alpha_fuse(dense, lexical, ALPHA).std()), rel=1e-5)


def test_ann_candidates_merge_into_the_collection_short_list():
    dense, lexical, bounds = parts(2000, [700, 1300], seed=1)
    shortlist = 50
    shards = []
    for a, b in bounds:  # each shard's own short list: its 50 best
        rows = np.argsort(-dense[a:b])[:shortlist]
        shards.append(candidate_moments(lexical[a:b], rows, dense[a:b][rows], short=True))
    scale = merged(shards, ALPHA, shortlist)
    best = np.argsort(-dense)[:shortlist]  # the whole collection's short list
    assert scale.floor == pytest.approx(float(dense[best].min()))
    assert scale.dense == (pytest.approx(float(dense[best].min())), pytest.approx(float(dense[best].max())))
    low = dense[best].min()
    whole = dense.copy()
    whole[np.setdiff1d(np.arange(len(dense)), best)] = low  # outside the short list: its lowest score
    assert scale.std == pytest.approx(float(alpha_fuse(whole, lexical, ALPHA).std()), rel=1e-5)
