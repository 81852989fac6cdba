"""Does GCL fine-tuning of the text encoder help dense retrieval on unseen queries?

On the VideoRAG paper's bench (534 WikiHowQA queries × 8,648 HowTo100M transcripts): the queries
are split so that no training query shares a relevant video with a held-out one; all-MiniLM-L6-v2
is fine-tuned on the training queries' (question, transcript piece) pairs grouped by video —
GCL, and the SCL baseline (same-video pairs in a batch count as negatives) — and `dense`
retrieval (the registered `dense` method on the transcript corpus; by default over each
transcript's opening 96 words only, to halve the embedding cost — the shipped `dense` takes the
best of two opening pieces) over the full corpus is
scored on the held-out queries before and after. First-gold R@1/5/10 (the paper's), any-gold R@10,
with paired bootstrap 95% intervals of the change.

    OMP_NUM_THREADS=2 python -m benchmarks gcl --out results/gcl [--max-steps 30] [--skip-scl]
writes OUT/gcl.json (after each variant: a long run interrupted keeps what it measured) and
OUT/table.md. The base model's transcript embeddings come from the eval cache; each fine-tuned
model re-embeds the corpus (8.6k pieces at --pieces 1: ~5-10 min on 2 cores).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from videorag.config import EmbedConfig, SearchConfig
from videorag.embed import create_embedder
from videorag.eval.cli import CACHE, bench_dir
from videorag.eval.datasets import load_transcripts, load_wikihow_qa
from videorag.eval.metrics import retrieval_scores
from videorag.eval.transcripts import TranscriptCorpusConfig, transcript_corpus
from videorag.finetune.data import bench_pairs, split_queries
from videorag.finetune.train import TrainConfig, finetune
from videorag.methods import create_method
from videorag.retrieve import Query, Searcher

KEYS = ("recall_first@1", "recall_first@5", "recall_first@10", "recall_any@10")


def options(p) -> None:
    p.add_argument("--models", type=Path, default=CACHE.parent / "gcl", help="fine-tuned models go here")
    p.add_argument("--held-out-fraction", type=float, default=0.4)
    p.add_argument("--max-steps", type=int, default=30)
    p.add_argument("--pieces", type=int, default=1,
                   help="transcript pieces embedded per video (the shipped dense uses 2; 1 halves the cost)")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--pairs-per-group", type=int, default=4)
    p.add_argument("--max-pieces", type=int, default=2, help="transcript pieces per video used in training")
    p.add_argument("--lr", type=float, default=5e-5)
    p.add_argument("--temperature", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--skip-scl", action="store_true", help="GCL only (saves one corpus embedding)")


def evaluate(transcripts: dict, items: list, embedder, pieces: int, cache_dir) -> dict:
    """`dense` over the whole corpus (each video's best opening piece); per-item hits for the
    bootstrap. Only the opening pieces are embedded (segment_words=0: `dense` needs no segments)."""
    start = time.perf_counter()
    corpus = transcript_corpus(transcripts, embedder, TranscriptCorpusConfig(pieces=pieces, segment_words=0),
                               cache_dir, show_progress=sys.stderr.isatty())
    searcher, config = Searcher(corpus, embedder), SearchConfig()
    method = create_method("dense", config)
    ranked = [searcher.rank_ids(Query(item.query), method, config, k=10) for item in items]
    scores = {s.name: s for s in retrieval_scores(items, ranked)}
    return {"scores": {k: round(scores[k].value, 4) for k in KEYS},
            "hits": {k: scores[k].per_item for k in KEYS}, "seconds": round(time.perf_counter() - start, 1)}


def bootstrap(before: list[float], after: list[float], rounds: int = 2000, seed: int = 0) -> list[float]:
    """Paired bootstrap 95% interval of mean(after − before) over queries."""
    diff = np.asarray(after) - np.asarray(before)
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), (rounds, len(diff)))].mean(axis=1)
    return [round(float(np.percentile(means, 2.5)), 4), round(float(np.percentile(means, 97.5)), 4)]


def run_variant(loss: str, args, transcripts, train_pairs, held, base: dict) -> dict:
    config = TrainConfig(batch_size=args.batch_size, pairs_per_group=args.pairs_per_group, lr=args.lr,
                         temperature=args.temperature, max_steps=args.max_steps, seed=args.seed, loss=loss)
    report = finetune(train_pairs, args.models / f"{loss}-minilm", config=config, show_progress=sys.stderr.isatty())
    tuned = evaluate(transcripts, held, create_embedder(EmbedConfig(model=report.out)), args.pieces,
                     cache_dir=None)   # the eval cache keys models by folder name: never reuse it here
    delta = {k: [round(tuned["scores"][k] - base["scores"][k], 4), bootstrap(base["hits"][k], tuned["hits"][k])]
             for k in KEYS}
    print(f"{loss}: {report.steps} steps in {report.seconds:.0f} s, loss {report.losses[0]:.3f} -> "
          f"{np.mean(report.losses[-10:]):.3f} (mean of last 10); {_row(tuned['scores'])}", flush=True)
    return {"loss": loss, "train_seconds": round(report.seconds, 1), "steps": report.steps,
            "loss_first": round(report.losses[0], 4), "loss_last10": round(float(np.mean(report.losses[-10:])), 4),
            "scores": tuned["scores"], "delta_and_ci95": delta, "eval_seconds": tuned["seconds"],
            "hits": tuned["hits"]}


def _row(scores: dict) -> str:
    return "  ".join(f"{k} {scores[k]:.3f}" for k in KEYS)


def markdown(result: dict, command: str) -> str:
    lines = ["# GCL fine-tuning of the text encoder: dense retrieval on held-out queries\n",
             f"```\n{command}\n```\n", "| encoder | " + " | ".join(KEYS) + " |", "|---" * (len(KEYS) + 1) + "|",
             "| all-MiniLM-L6-v2 (no fine-tuning) | " + " | ".join(f"{result['base']['scores'][k]:.3f}"
                                                              for k in KEYS) + " |"]
    for v in result["variants"]:
        cells = [f"{v['scores'][k]:.3f} ({v['delta_and_ci95'][k][0]:+.3f}, CI {v['delta_and_ci95'][k][1][0]:+.3f}"
                 f"…{v['delta_and_ci95'][k][1][1]:+.3f})" for k in KEYS]
        lines.append(f"| + {v['loss'].upper()} ({v['steps']} steps) | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write(run, result: dict) -> None:
    run.write(result)
    (run.out / "table.md").write_text(markdown(result, result["command"]))


def main(run) -> dict:
    args = run.args
    bench = bench_dir()
    transcripts = load_transcripts(bench / "transcripts.jsonl.gz")
    train, held = split_queries(load_wikihow_qa(bench / "wikihow_qa.json"), args.held_out_fraction, args.seed)
    train_pairs = bench_pairs(transcripts, train, max_pieces=args.max_pieces)
    print(f"{len(train)} training queries ({len(train_pairs)} pairs), {len(held)} held-out queries, "
          f"{len(transcripts)} transcripts", flush=True)
    base = evaluate(transcripts, held, create_embedder(EmbedConfig()), args.pieces, cache_dir=CACHE)
    print(f"base: {_row(base['scores'])}", flush=True)
    result = {"command": run.command, "args": {k: str(v) for k, v in vars(args).items()},
              "split": {"train_queries": len(train), "held_out_queries": len(held), "train_pairs": len(train_pairs),
                        "corpus": len(transcripts)}, "base": base, "variants": []}
    for loss in ("gcl",) if args.skip_scl else ("gcl", "scl"):
        result["variants"].append(run_variant(loss, args, transcripts, train_pairs, held, base))
        write(run, result)   # after each variant: a long run interrupted keeps what it measured
    print(markdown(result, result["command"]))
    return result
