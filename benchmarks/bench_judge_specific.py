"""What the judge does to video retrieval on the specific-question dev set (no target; issue
"Moments II"): the top 10 videos of `best` reranked by their best judged step.

The bench's transcripts have no times and no punctuation, so a video's steps are its 40-word
pieces; to keep this affordable on 2 cores the pieces are not embedded (their within-video score
is BM25 alone) and only the videos some question's first stage returns get pieces. One step per
video is judged (the best by that score), ten per question, and a video scores
`video_weight` · its judged step + the rest its first-stage score.

Usage: python benchmarks/bench_judge_specific.py [--qa benchmarks/specific_qa/dev_a.json]
           [--limit N] [--video-weight 0.5] [--judge-model PATH_OR_NAME] [--out bench-results]
Prints R@1/5/10 (first gold) before and after, with the judge's time a question.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

from videorag.config import Config, EmbedConfig  # noqa: E402
from videorag.embed import create_embedder  # noqa: E402
from videorag.eval import metrics  # noqa: E402
from videorag.eval.cli import CACHE, bench_dir  # noqa: E402
from videorag.eval.datasets import load_transcripts, load_wikihow_qa  # noqa: E402
from videorag.eval.transcripts import TranscriptCorpusConfig, transcript_corpus  # noqa: E402
from videorag.methods import create_method  # noqa: E402
from videorag.retrieve import Corpus, Level, Query, Searcher  # noqa: E402

PIECE = 40


def with_pieces(corpus: Corpus, transcripts: dict, videos: set[str], dim: int) -> Corpus:
    """`corpus` with a segment level of PIECE-word pieces for `videos` (zero vectors: BM25 only)."""
    rows = [(row, lo, words[lo:lo + PIECE]) for row, v in enumerate(corpus.video_ids) if v in videos
            for words in [transcripts[v].split()] for lo in range(0, len(words), PIECE)]
    texts = [" ".join(w) + "." for _, _, w in rows]
    level = Level.build(np.array([r[0] for r in rows], np.int32), np.array([r[1] for r in rows], float),
                        np.array([r[1] + len(r[2]) for r in rows], float), texts, np.zeros((len(rows), dim), np.float32))
    return Corpus(corpus.video_ids, corpus.paths, level, corpus.chunks, corpus.videos)


def recall(items, runs) -> dict:
    scores = metrics.retrieval_scores(items, runs)
    return {s.name: round(s.value, 3) for s in scores if s.name.startswith("recall_first@")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--qa", type=Path, default=ROOT / "benchmarks" / "specific_qa" / "dev_a.json")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--video-weight", type=float, default=0.5)
    parser.add_argument("--judge-model", default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "bench-results")
    args = parser.parse_args()
    transcripts = load_transcripts(bench_dir() / "transcripts.jsonl.gz")
    items = load_wikihow_qa(args.qa)[:args.limit]
    config = Config()
    embedder = create_embedder(EmbedConfig())
    corpus = transcript_corpus(transcripts, embedder, TranscriptCorpusConfig(), CACHE, show_progress=True)
    first = Searcher(corpus, embedder)
    best = create_method("best", config.search)
    before = [first.rank_ids(Query(it.query, it.question), best, config.search, 10) for it in items]
    searcher = Searcher(with_pieces(corpus, transcripts, {v for run in before for v in run}, embedder.dim), embedder)
    judge = config.search.judge
    judge.videos, judge.candidates, judge.per_video, judge.video_weight = 10, 10, 1, args.video_weight
    judge.reranker.model = args.judge_model
    judged = create_method("best", config.search, judged=True)
    after, seconds = [], []
    for it in items:
        start = time.perf_counter()
        after.append(searcher.rank_ids(Query(it.query, it.question), judged, config.search, 10))
        seconds.append(time.perf_counter() - start)
    result = {"qa": str(args.qa), "n": len(items), "video_weight": args.video_weight, "best": recall(items, before),
              "best+judge": recall(items, after),
              "judge_seconds": {"p50": round(float(np.percentile(seconds, 50)), 2),
                                "p95": round(float(np.percentile(seconds, 95)), 2)}}
    print(json.dumps(result, indent=1))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "judge-specific.json").write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    sys.exit(main())
