"""The learned frame scorer, trained for real on synthetic frame features with planted
informative frames: its loss falls and it beats uniform and random selection on held-out videos."""
from __future__ import annotations

import numpy as np
import pytest

from videorag.visual import scorer
from videorag.visual.selection import kmeans_frames, random_frames, uniform_frames

DIM = 32


def _video(rng, informative: int = 3, frames: int = 8):
    """A video's 8 candidate frames: a few informative ones near its topic, the rest filler
    (title cards, blank shots) near a shared filler direction. Its query is near the topic."""
    topic = rng.normal(size=DIM)
    topic /= np.linalg.norm(topic)
    filler = np.r_[np.ones(DIM // 2), -np.ones(DIM // 2)] / np.sqrt(DIM)
    feats = np.stack([filler + 0.35 * rng.normal(size=DIM) / np.sqrt(DIM) for _ in range(frames)])
    good = rng.choice(frames, size=informative, replace=False)
    feats[good] = topic + 0.35 * rng.normal(size=(informative, DIM)) / np.sqrt(DIM)
    feats /= np.linalg.norm(feats, axis=1, keepdims=True)
    query = topic + 0.2 * rng.normal(size=DIM) / np.sqrt(DIM)
    return feats.astype(np.float32), (query / np.linalg.norm(query)).astype(np.float32)


def _similarity(feats, query, chosen) -> float:
    mean = feats[chosen].mean(0)
    return float(mean @ query / np.linalg.norm(mean))


def test_retrieval_labels_mark_top_and_bottom_three():
    feats, query = _video(np.random.default_rng(0))
    labels = scorer.retrieval_labels(feats, query)
    assert [s.label for s in labels] == [1.0] * 3 + [0.0] * 3
    sims = [_similarity(s.frames, query, list(range(4))) for s in labels]
    assert min(sims[:3]) > max(sims[3:])


def test_trained_retrieval_scorer_beats_uniform_and_random():
    pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    train_set = [s for _ in range(150) for s in scorer.retrieval_labels(*_video(rng))]
    net = scorer.build_retrieval_net(DIM, hidden=64)
    result = scorer.train(net, train_set, epochs=40, lr=3e-3)
    assert result.losses[-1] < 0.5 * result.losses[0]
    held_out = [_video(np.random.default_rng(1000 + i)) for i in range(60)]
    learned = np.mean([_similarity(f, q, scorer.best_retrieval_subset(net, f)) for f, q in held_out])
    uniform = np.mean([_similarity(f, q, uniform_frames(8, 4)) for f, q in held_out])
    rand = np.mean([_similarity(f, q, random_frames(8, 4, seed=i)) for i, (f, q) in enumerate(held_out)])
    assert learned > uniform + 0.05 and learned > rand + 0.05, (learned, uniform, rand)


def test_generation_scorer_is_query_aware_and_learns():
    pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    samples = []
    for _ in range(120):
        feats, query = _video(rng, informative=4, frames=12)
        subsets = scorer.random_subsets(12, 6, 12, seed=int(rng.integers(1e6)))
        quality = [_similarity(feats, query, list(s)) for s in subsets]   # stands in for ROUGE-L
        good, bad = scorer.top_bottom(quality)
        samples += [scorer.LabelledSubset(feats[list(subsets[i])], 1.0, query) for i in good]
        samples += [scorer.LabelledSubset(feats[list(subsets[i])], 0.0, query) for i in bad]
    net = scorer.GenerationNet.build(DIM, hidden=64)
    result = scorer.train(net, samples, epochs=40, lr=3e-3)
    assert result.losses[-1] < 0.7 * result.losses[0]
    wins = []
    for i in range(40):
        feats, query = _video(np.random.default_rng(5000 + i), informative=4, frames=12)
        chosen = scorer.best_generation_subset(net, feats, query, size=6, candidates=12, seed=i)
        wins.append(_similarity(feats, query, chosen) - _similarity(feats, query, random_frames(12, 6, seed=i)))
    assert np.mean(wins) > 0.03


def test_kmeans_keeps_one_frame_per_cluster():
    rng = np.random.default_rng(3)
    centres = rng.normal(size=(4, DIM)) * 5
    feats = np.concatenate([c + rng.normal(size=(10, DIM)) * 0.1 for c in centres])
    chosen = kmeans_frames(feats, 4)
    assert len(chosen) == 4 and sorted({i // 10 for i in chosen}) == [0, 1, 2, 3]
    assert kmeans_frames(feats[:3], 8) == [0, 1, 2]


def test_kmeans_with_fewer_distinct_frames_than_centroids_keeps_one_of_each(recwarn):
    feats = np.repeat(np.eye(DIM)[:2], [4, 3], axis=0)   # 7 frames, 2 distinct (a still slide)
    assert kmeans_frames(feats, 5) == [0, 4]
    assert not [w for w in recwarn if "distinct clusters" in str(w.message)]


def test_scorer_round_trips(tmp_path):
    pytest.importorskip("torch")
    net = scorer.build_retrieval_net(DIM, hidden=16)
    path = tmp_path / scorer.SCORER_FILE
    scorer.save(path, {"retrieval": net}, {"dim": DIM, "subset": 4, "hidden": 16})
    nets, meta = scorer.load(path)
    feats, _ = _video(np.random.default_rng(4))
    assert meta["dim"] == DIM
    assert scorer.best_retrieval_subset(nets["retrieval"], feats) == scorer.best_retrieval_subset(net, feats)


def test_reduction_baselines_are_selectable():
    from videorag.config import IngestConfig
    from videorag.errors import ConfigError
    from videorag.visual.represent import retrieval_frames

    feats = np.random.default_rng(5).normal(size=(40, DIM)).astype(np.float32)
    assert retrieval_frames(feats, 8, 4, None, "uniform") == uniform_frames(40, 8)
    assert retrieval_frames(feats, 8, 4, None, "random") == random_frames(40, 8)
    assert len(retrieval_frames(feats, 8, 4, None, "kmeans")) == 8
    with pytest.raises(ConfigError, match="'mean'"):
        IngestConfig(frame_reduction="mean")
