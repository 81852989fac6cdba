"""The ANN benchmark's data and candidates: replicas keep their sources first and stay unit
vectors, the ground truth is exact search, and every candidate that probes all cells with a short
list as long as the collection finds exactly that."""
from __future__ import annotations

import numpy as np
import pytest

from benchmarks import ann_data
from benchmarks.bench_ann import CANDIDATES


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    work = tmp_path_factory.mktemp("ann")
    rng = np.random.default_rng(0)
    base = rng.standard_normal((300, 32)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    path = ann_data.collection(work, base, 1_500, noise=0.6)
    queries = base[:20] + 0.3 * rng.standard_normal((20, 32)).astype(np.float32)
    return base, path, queries / np.linalg.norm(queries, axis=1, keepdims=True)


def test_a_collection_is_its_real_vectors_then_noisy_unit_replicas(collection):
    base, path, _ = collection
    rows = np.load(path)
    assert rows.shape == (1_500, 32) and np.allclose(np.linalg.norm(rows, axis=1), 1, atol=1e-5)
    assert np.allclose(rows[:300], base, atol=1e-6)
    similarity = np.sum(rows[300:600] * base, axis=1)      # replica i of source i mod 300
    assert 0.5 < similarity.mean() < 0.99


def test_the_ground_truth_is_exact_search(collection):
    _, path, queries = collection
    truth = ann_data.truth(path, queries)
    rows = np.load(path)
    assert all(set(t) == set(np.argsort(-(rows @ q))[:10]) for t, q in zip(truth, queries))


@pytest.mark.parametrize("name", ["ivf-flat", "faiss-ivfpq48", "faiss-ivfpq-fs96", "faiss-ivfsq8"])
def test_a_candidate_searching_everything_finds_the_exact_top_10(collection, tmp_path, name):
    _, path, queries = collection
    CANDIDATES[name](path).build(tmp_path)
    candidate = CANDIDATES[name](path, probes=10_000, shortlist=1_500)
    candidate.open(tmp_path)
    truth = ann_data.truth(path, queries)
    assert all(set(candidate.search(q, 10)) == set(t) for q, t in zip(queries, truth))
