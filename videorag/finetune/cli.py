"""`videorag finetune`: GCL fine-tuning of the text encoder, from a golden set over an index or
from the VideoRAG bench. Wire with `add_parser(subparsers)` and `run(args, config) -> exit status`."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import ConfigError
from .train import LOSSES, TrainConfig


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("finetune", help="fine-tune the text encoder (GCL: questions grouped by video)")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--qa", type=Path, metavar="FILE", help="golden JSONL {query, relevant: [video_id]}")
    source.add_argument("--bench", action="store_true",
                        help="the VideoRAG bench ($VIDEORAG_BENCH or ../shared/bench/howto100m-wikihow)")
    p.add_argument("--index", default="videorag-index", metavar="DIR",
                   help="with --qa: the index whose segments and chunks are the units (default ./%(default)s)")
    p.add_argument("--out", type=Path, required=True, metavar="FOLDER",
                   help="where the fine-tuned model goes (then: --embed-model FOLDER)")
    p.add_argument("--base-model", default=None, help="model to start from (default: bundled all-MiniLM-L6-v2)")
    p.add_argument("--loss", choices=LOSSES, default=TrainConfig.loss,
                   help="gcl, or the scl baseline (same-video pairs as negatives)")
    p.add_argument("--epochs", type=int, default=TrainConfig.epochs)
    p.add_argument("--batch-size", type=int, default=TrainConfig.batch_size, help="pairs per batch")
    p.add_argument("--pairs-per-group", type=int, default=TrainConfig.pairs_per_group)
    p.add_argument("--max-steps", type=int, default=None, help="stop after this many steps")
    p.add_argument("--lr", type=float, default=TrainConfig.lr)
    p.add_argument("--temperature", type=float, default=TrainConfig.temperature)
    p.add_argument("--held-out-fraction", type=float, default=0.2,
                   help="share of videos (--qa) or queries (--bench) kept out of training")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    return p


def train_config(args) -> TrainConfig:
    return TrainConfig(epochs=args.epochs, batch_size=args.batch_size, pairs_per_group=args.pairs_per_group,
                       lr=args.lr, temperature=args.temperature, max_steps=args.max_steps, seed=args.seed,
                       loss=args.loss)


def load_pairs(args) -> tuple[list, list]:
    """(train, held-out) pairs from the chosen source; the split is video-disjoint."""
    from . import data

    if args.bench:
        from ..eval.cli import bench_dir
        from ..eval.datasets import load_transcripts, load_wikihow_qa

        transcripts = load_transcripts(bench_dir() / "transcripts.jsonl.gz")
        train, held = data.split_queries(load_wikihow_qa(bench_dir() / "wikihow_qa.json"),
                                         args.held_out_fraction, args.seed)
        return data.bench_pairs(transcripts, train), data.bench_pairs(transcripts, held) if held else []
    from ..eval.datasets import load_golden_jsonl
    from ..index import VideoIndex

    if not args.qa.is_file():
        raise ConfigError(f"golden file {args.qa} not found", "pass --qa FILE.jsonl")
    pairs = data.index_pairs(VideoIndex.open(args.index), load_golden_jsonl(args.qa))
    return data.split_by_group(pairs, args.held_out_fraction, args.seed)


def _similarity(name: str, before: dict | None, after: dict | None) -> str:
    if not before or not after:
        return f"{name}: none held out"
    return (f"{name} within/between-video cosine {before['within']:.3f}/{before['between']:.3f} -> "
            f"{after['within']:.3f}/{after['between']:.3f} (margin {before['margin']:+.3f} -> "
            f"{after['margin']:+.3f})")


def run(args, config) -> int:
    from .data import group_pairs
    from .train import finetune

    cfg = train_config(args)
    train, held = load_pairs(args)
    print(f"train: {len(group_pairs(train))} videos, {len(train)} pairs; held out: "
          f"{len(group_pairs(held)) if held else 0} videos", file=sys.stderr)
    report = finetune(train, args.out, args.base_model or config.embed.model, cfg, held_out=held,
                      show_progress=config.show_progress)
    print(f"{cfg.loss}: {report.steps} steps in {report.seconds:.0f} s, loss {report.losses[0]:.3f} -> "
          f"{report.losses[-1]:.3f}", file=sys.stderr)
    print(_similarity("held-out", report.held_out_before, report.held_out_after), file=sys.stderr)
    print(f"saved to {report.out}; use it with --embed-model {report.out}", file=sys.stderr)
    return 0
