"""GCL fine-tuning: the loss against hand-computed values, the video-disjoint splits, the batches,
and (slow) a real few-step fine-tune of the bundled MiniLM."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from videorag.errors import ConfigError  # noqa: E402
from videorag.eval.datasets import EvalItem  # noqa: E402
from videorag.finetune.data import (Pair, batches, bench_pairs, group_pairs, split_by_group,  # noqa: E402
                                    split_queries)
from videorag.finetune.gcl import gcl_loss, gcl_pair_losses, scl_loss, supcon_loss  # noqa: E402
from videorag.finetune.train import TrainConfig  # noqa: E402

# two questions; units u0, u1 belong to q0's video (group 0), u2 to q1's (group 1)
Q = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
U = torch.tensor([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]])
QG, UG = torch.tensor([0, 1]), torch.tensor([0, 0, 1])


def test_gcl_matches_the_hand_computed_value():
    # similarities: q0 -> (1, .6, 0), q1 -> (0, .8, 1); τ = 1
    expected = (math.log(1 + math.exp(-1.0))                                   # (q0, u0): u1 left out
                + math.log(1 + math.exp(-0.6))                                 # (q0, u1): u0 left out
                - math.log(math.exp(1.0) / (math.exp(1.0) + 1 + math.exp(0.8)))) / 3   # (q1, u2)
    assert gcl_loss(Q, U, QG, UG, temperature=1.0).item() == pytest.approx(expected, rel=1e-6)
    # τ divides the similarities: at τ = 0.5 the (q1, u2) term is −log(e² / (e² + 1 + e^1.6))
    terms, positive = gcl_pair_losses(Q, U, QG, UG, temperature=0.5)
    assert terms[1, 2].item() == pytest.approx(-math.log(math.e ** 2 / (math.e ** 2 + 1 + math.e ** 1.6)))
    assert positive.tolist() == [[True, True, False], [False, False, True]]


def test_other_positives_are_not_in_the_denominator():
    # plain SupCon keeps u1 in the denominator of (q0, u0) and u0 in that of (q0, u1)
    both = math.log(math.exp(1.0) + math.exp(0.6) + 1)
    q1u2 = -math.log(math.exp(1.0) / (math.exp(1.0) + 1 + math.exp(0.8)))
    assert supcon_loss(Q, U, QG, UG, 1.0).item() == pytest.approx(((both - 1.0) + (both - 0.6) + q1u2) / 3)
    assert supcon_loss(Q, U, QG, UG, 1.0).item() > gcl_loss(Q, U, QG, UG, 1.0).item() + 0.3
    # moving the other positive u1 onto q0 leaves the (q0, u0) term of GCL unchanged
    closer = torch.tensor([[1.0, 0.0], [0.96, 0.28], [0.0, 1.0]])
    before, _ = gcl_pair_losses(Q, U, QG, UG, 1.0)
    after, _ = gcl_pair_losses(Q, closer, QG, UG, 1.0)
    assert after[0, 0].item() == pytest.approx(before[0, 0].item())
    assert after[0, 1].item() < before[0, 1].item()


def test_loss_decreases_when_positives_get_closer():
    losses = []
    for angle in (1.2, 0.8, 0.4, 0.1):   # u1 turns towards q0
        units = torch.tensor([[1.0, 0.0], [math.cos(angle), math.sin(angle)], [0.0, 1.0]])
        losses.append(gcl_loss(Q, units, QG, UG, temperature=0.1).item())
    assert all(a > b for a, b in zip(losses, losses[1:])) and losses[0] - losses[-1] > 0.1


def test_gradient_pulls_positives_together_and_stays_finite_without_negatives():
    units = U.clone().requires_grad_(True)
    gcl_loss(Q, units, QG, UG, 0.1).backward()
    assert units.grad[1] @ Q[0] < 0           # descending the gradient moves u1 towards q0
    lonely = torch.tensor([0, 0]), torch.tensor([0, 0, 0])   # one group: no negatives at all
    units = U.clone().requires_grad_(True)
    loss = gcl_loss(Q, units, *lonely, 0.1)
    loss.backward()
    assert loss.item() == 0.0 and torch.isfinite(units.grad).all()


def test_scl_counts_same_video_units_as_negatives():
    # pairs (q0, u0), (q0, u1), (q1, u2): row (q0, u0) also has u1 in its denominator
    rows, targets = Q[[0, 0, 1]], torch.tensor([0, 1, 2])
    expected = (math.log(math.exp(1) + math.exp(0.6) + 1) * 2 - 1.0 - 0.6
                + math.log(1 + math.exp(0.8) + math.exp(1)) - 1.0) / 3
    assert scl_loss(rows, U, targets, 1.0).item() == pytest.approx(expected, rel=1e-6)
    assert scl_loss(rows, U, targets, 1.0).item() > gcl_loss(Q, U, QG, UG, 1.0).item()


def _pairs(videos: int = 10, per_video: int = 3) -> list[Pair]:
    return [Pair(f"question about v{v}", f"unit {i} of v{v}", f"v{v}") for v in range(videos) for i in range(per_video)]


def test_split_by_group_is_video_disjoint():
    pairs = _pairs(10)
    train, held = split_by_group(pairs, 0.3, seed=1)
    assert {p.group for p in train}.isdisjoint({p.group for p in held})
    assert len({p.group for p in held}) == 3 and len(train) + len(held) == len(pairs)
    assert split_by_group(pairs, 0.3, seed=1) == (train, held)
    assert split_by_group(pairs, 0.3, seed=2) != (train, held)
    with pytest.raises(ConfigError):
        split_by_group(pairs, 1.0)


def test_split_queries_drops_training_items_that_share_held_out_videos():
    items = [EvalItem(str(i), f"q{i}", [f"v{i}", f"v{i + 1}"]) for i in range(20)]   # neighbours share one
    train, held = split_queries(items, 0.25, seed=0)
    held_videos = {v for it in held for v in it.relevant}
    assert len(held) == 5 and all(held_videos.isdisjoint(it.relevant) for it in train)
    assert 5 <= len(train) < 15   # some neighbours of held-out items were dropped


def test_batches_mix_groups_and_never_co_batch_a_shared_question():
    pairs = _pairs(9, per_video=5) + [Pair("question about v0", "unit of w", "w")]   # w shares v0's question
    groups = group_pairs(pairs)
    seen = set()
    for batch in batches(groups, 4, 2, random.Random(0)):
        by_group = {}
        for p in batch:
            by_group.setdefault(p.group, []).append(p)
        assert 2 <= len(by_group) <= 4 and all(len(v) <= 2 for v in by_group.values())
        assert not {"v0", "w"} <= set(by_group)
        seen |= set(by_group)
    assert seen == {g.name for g in groups}


def test_bench_pairs_cut_transcripts_into_pieces():
    transcripts = {"a": " ".join(f"w{i}" for i in range(300)), "b": "short one"}
    items = [EvalItem("1", "Fix a Bike", ["a", "b", "missing"], question="How To Fix a Bike")]
    pairs = bench_pairs(transcripts, items, piece_words=128, max_pieces=2)
    assert {p.group for p in pairs} == {"a", "b"} and len(pairs) == 2 * 2 + 2 * 1
    assert {len(p.unit.split()) for p in pairs if p.group == "a"} == {128}


def test_train_config_rejects_bad_values():
    with pytest.raises(ConfigError, match="at least two groups"):
        TrainConfig(batch_size=4, pairs_per_group=4)
    with pytest.raises(ConfigError):
        TrainConfig(loss="triplet")
    with pytest.raises(ConfigError):
        TrainConfig(temperature=0)


def _tiny_index(path, topics: dict):
    """A real index with one video per topic: its units' texts as segments, all of them as a chunk."""
    from videorag.index import VideoIndex, VideoRecord
    from videorag.types import Segment

    index = VideoIndex.open_or_create(path, "test-model", 4)
    for name, (_, units) in topics.items():
        segments = [Segment(5.0 * i, 5.0 * i + 5, text) for i, text in enumerate(units)]
        chunks = [Segment(0.0, 5.0 * len(units), " ".join(units))]
        vectors = np.tile(np.array([1.0, 0, 0, 0], np.float32), (len(segments), 1))
        index.add(VideoRecord(name, f"/videos/{name}.mp4", 1, 1, chunks[0].end, "subtitles",
                              segments, vectors, chunks, vectors[:1]))
    return index


def _golden(path, topics: dict) -> None:
    import json

    rows = [{"query": q, "relevant": [name, "not-indexed"]} for name, (qs, _) in topics.items() for q in qs]
    path.write_text("\n".join(json.dumps(r) for r in rows))


def test_index_pairs_are_the_relevant_videos_segments_and_chunks(tmp_path):
    from videorag.eval.datasets import load_golden_jsonl
    from videorag.finetune.data import index_pairs

    index = _tiny_index(tmp_path / "index", TOPICS)
    _golden(tmp_path / "golden.jsonl", TOPICS)
    pairs = index_pairs(index, load_golden_jsonl(tmp_path / "golden.jsonl"))
    bike = [p for p in pairs if p.group == "bike"]
    assert {p.group for p in pairs} == set(TOPICS)                      # "not-indexed" skipped
    assert [p.unit for p in bike] == TOPICS["bike"][1] + [" ".join(TOPICS["bike"][1])]
    assert {p.question for p in bike} == set(TOPICS["bike"][0])
    with pytest.raises(ConfigError, match="no golden query"):
        index_pairs(index, [EvalItem("1", "q", ["elsewhere"])])


def test_cli_parses_its_options_into_a_train_config(tmp_path):
    import argparse

    from videorag.config import Config
    from videorag.finetune import cli

    parser = argparse.ArgumentParser()
    cli.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["finetune", "--qa", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "m"),
                              "--epochs", "2", "--batch-size", "16", "--lr", "1e-4", "--temperature", "0.1",
                              "--seed", "3", "--loss", "scl"])
    config = cli.train_config(args)
    assert (config.epochs, config.batch_size, config.lr, config.temperature, config.seed, config.loss) == \
        (2, 16, 1e-4, 0.1, 3, "scl")
    with pytest.raises(ConfigError, match="not found"):
        cli.run(args, Config())
    with pytest.raises(SystemExit):   # --qa and --bench are exclusive
        parser.parse_args(["finetune", "--qa", "x", "--bench", "--out", "m"])


TOPICS = {
    "bike": (["how do I repair a punctured bicycle tube"],
             ["lever the tyre off the rim and pull out the inner tube",
              "find the hole with soapy water, roughen it and glue on a patch",
              "pump the tube a little, tuck it back in and seat the bead"]),
    "bread": (["how do I bake a sourdough loaf"],
              ["feed the starter the night before so it is bubbly",
               "mix flour, water and salt, fold the dough every half hour",
               "bake in a hot covered pot, then uncover to brown the crust"]),
    "paint": (["how should I paint a bedroom wall"],
              ["fill the cracks, sand them smooth and wipe off the dust",
               "tape the edges and cut in along the ceiling with a brush",
               "roll on two thin coats and let each one dry"]),
    "plant": (["how do I repot a houseplant"],
              ["water the plant a day ahead so the root ball slides out",
               "loosen circling roots and trim any that are dead",
               "set it in a slightly larger pot with fresh potting mix"]),
}


def _within(embedder) -> float:
    sims = []
    for questions, units in TOPICS.values():
        q, u = embedder.embed(questions), embedder.embed(units)
        sims.append(float((q @ u.T).mean()))
    return float(np.mean(sims))


@pytest.mark.slow
def test_finetune_really_trains_minilm_and_saves_a_loadable_model(tmp_path):
    from videorag.config import EmbedConfig
    from videorag.embed import create_embedder
    from videorag.finetune.train import finetune

    pairs = [Pair(q, u, name) for name, (qs, us) in TOPICS.items() for q in qs for u in us]
    config = TrainConfig(batch_size=12, pairs_per_group=3, lr=1e-4, epochs=8, max_steps=6, seed=0)
    report = finetune(pairs, tmp_path / "gcl-minilm", config=config)
    assert report.steps == 6 and all(np.isfinite(report.losses))
    assert np.mean(report.losses[-2:]) < report.losses[0]
    tuned = create_embedder(EmbedConfig(model=str(tmp_path / "gcl-minilm")))
    assert tuned.embed(["a question"]).shape == (1, 384)
    base = create_embedder(EmbedConfig())
    assert _within(tuned) > _within(base) + 0.05


@pytest.mark.slow
def test_cli_finetunes_from_a_golden_set_over_an_index(tmp_path, capsys):
    import argparse

    from videorag.config import Config
    from videorag.finetune import cli

    _tiny_index(tmp_path / "index", TOPICS)
    _golden(tmp_path / "golden.jsonl", TOPICS)
    parser = argparse.ArgumentParser()
    cli.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["finetune", "--qa", str(tmp_path / "golden.jsonl"),
                              "--index", str(tmp_path / "index"), "--out", str(tmp_path / "tuned"),
                              "--batch-size", "8", "--max-steps", "2", "--epochs", "3",   # 1 batch an epoch
                              "--held-out-fraction", "0.25"])
    assert cli.run(args, Config()) == 0
    err = capsys.readouterr().err
    assert "train: 3 videos" in err and "held out: 1 videos" in err and "gcl: 2 steps" in err
    assert (tmp_path / "tuned" / "modules.json").is_file()
