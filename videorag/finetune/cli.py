"""`videorag finetune`: GCL fine-tuning of the text encoder, from a golden set over an index or
from the VideoRAG bench. Wire with `add_parser(subparsers)` and `run(args, config) -> exit status`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..config import override
from ..errors import ConfigError
from ..options import OptionTable, option
from .train import LOSSES, TrainConfig

FINETUNE = ("finetune",)
# a declarative table, as options.py's: one option a line
# fmt: off
TRAIN = OptionTable("train_options", lambda: TrainConfig, (
    option("--loss", "loss", "gcl, or the scl baseline (same-video pairs as negatives) (default {default})",
           FINETUNE, choices=LOSSES),
    option("--epochs", "epochs", "passes over the training pairs (default {default})", FINETUNE, type=int),
    option("--batch-size", "batch_size", "pairs per batch (default {default})", FINETUNE, type=int),
    option("--pairs-per-group", "pairs_per_group", "pairs of one video in a batch (default {default})", FINETUNE,
           type=int),
    option("--max-steps", "max_steps", "stop after this many steps (default: every epoch)", FINETUNE, type=int),
    option("--lr", "lr", "learning rate (default {default})", FINETUNE, type=float),
    option("--temperature", "temperature", "contrastive loss temperature (default {default})", FINETUNE,
           type=float),
    option("--seed", "seed", "shuffling and the held-out split (default {default})", FINETUNE, type=int),
))
# fmt: on


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("finetune", help="fine-tune the text encoder (GCL: questions grouped by video)")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--qa", type=Path, metavar="FILE", help="golden JSONL {query, relevant: [video_id]}")
    source.add_argument(
        "--bench", action="store_true", help="the VideoRAG bench ($VIDEORAG_BENCH or ../shared/bench/howto100m-wikihow)"
    )
    p.add_argument(
        "--index",
        default="videorag-index",
        metavar="DIR",
        help="with --qa: the index whose segments and chunks are the units (default ./%(default)s)",
    )
    p.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="FOLDER",
        help="where the fine-tuned model goes (then: --embed-model FOLDER)",
    )
    p.add_argument("--base-model", default=None, help="model to start from (default: bundled all-MiniLM-L6-v2)")
    TRAIN.add(p, "finetune")
    p.add_argument(
        "--held-out-fraction",
        type=float,
        default=0.2,
        help="share of videos (--qa) or queries (--bench) kept out of training",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    return p


def train_config(args) -> TrainConfig:
    """The training settings: `TrainConfig`'s defaults and the options given."""
    return override(TrainConfig(), TRAIN.given(args))


def load_pairs(args, seed: int) -> tuple[list, list]:
    """(train, held-out) pairs from the chosen source; the split (drawn by `seed`) is video-disjoint."""
    from . import data

    if args.bench:
        from ..eval.cli import bench_dir
        from ..eval.datasets import load_transcripts, load_wikihow_qa

        transcripts = load_transcripts(bench_dir() / "transcripts.jsonl.gz")
        train, held = data.split_queries(load_wikihow_qa(bench_dir() / "wikihow_qa.json"), args.held_out_fraction, seed)
        return data.bench_pairs(transcripts, train), data.bench_pairs(transcripts, held) if held else []
    from ..eval.datasets import load_golden_jsonl
    from ..index import VideoIndex

    if not args.qa.is_file():
        raise ConfigError(f"golden file {args.qa} not found", "pass --qa FILE.jsonl")
    pairs = data.index_pairs(VideoIndex.open(args.index), load_golden_jsonl(args.qa))
    return data.split_by_group(pairs, args.held_out_fraction, seed)


def _similarity(name: str, before: dict | None, after: dict | None) -> str:
    if not before or not after:
        return f"{name}: none held out"
    return (
        f"{name} within/between-video cosine {before['within']:.3f}/{before['between']:.3f} -> "
        f"{after['within']:.3f}/{after['between']:.3f} (margin {before['margin']:+.3f} -> "
        f"{after['margin']:+.3f})"
    )


def run(args, config) -> int:
    from .data import group_pairs
    from .train import finetune

    cfg = train_config(args)
    train, held = load_pairs(args, cfg.seed)
    print(
        f"train: {len(group_pairs(train))} videos, {len(train)} pairs; held out: "
        f"{len(group_pairs(held)) if held else 0} videos",
        file=sys.stderr,
    )
    report = finetune(
        train, args.out, args.base_model or config.embed.model, cfg, held_out=held, show_progress=config.show_progress
    )
    print(
        f"{cfg.loss}: {report.steps} steps in {report.seconds:.0f} s, loss {report.losses[0]:.3f} -> "
        f"{report.losses[-1]:.3f}",
        file=sys.stderr,
    )
    print(_similarity("held-out", report.held_out_before, report.held_out_after), file=sys.stderr)
    print(f"saved to {report.out}; use it with --embed-model {report.out}", file=sys.stderr)
    return 0
