"""What the judge does to video retrieval on the specific-question dev set (no target; issue
"Moments II"): the top 10 videos of `best` reranked by their best judged step.

The bench's transcripts have no times and no punctuation, so a video's steps are its 40-word
pieces; to keep this affordable on 2 cores the pieces are not embedded (their within-video score
is BM25 alone) and only the videos some question's first stage returns get pieces. One step per
video is judged (the best by that score), ten per question, and a video scores
`video_weight` · its judged step + the rest its first-stage score.

    python -m benchmarks judge_specific [--qa benchmarks/specific_qa/dev_a.json] [--limit N]
        [--video-weight 0.5] [--judge-model PATH_OR_NAME]
prints R@1/5/10 (first gold) before and after, with the judge's time a question; writes
OUT/judge_specific.json.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from videorag.config import EmbedConfig
from videorag.embed import create_embedder
from videorag.eval import metrics
from videorag.eval.cli import CACHE, bench_dir
from videorag.eval.datasets import load_transcripts, load_wikihow_qa
from videorag.eval.transcripts import TranscriptCorpusConfig, transcript_corpus
from videorag.methods import create_method
from videorag.retrieve import Corpus, Level, Query, Searcher

from .synthetic import percentiles

QA = Path(__file__).resolve().parent / "specific_qa"

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


def options(parser) -> None:
    parser.add_argument("--qa", type=Path, default=QA / "dev_a.json")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--video-weight", type=float, default=0.5)
    parser.add_argument("--judge-model", default=None)


def main(run) -> dict:
    args = run.args
    transcripts = load_transcripts(bench_dir() / "transcripts.jsonl.gz")
    items = load_wikihow_qa(args.qa)[:args.limit]
    config = run.config()
    embedder = create_embedder(EmbedConfig())
    corpus = transcript_corpus(transcripts, embedder, TranscriptCorpusConfig(), CACHE, show_progress=True)
    first = Searcher(corpus, embedder)
    best = create_method("best", config.search)
    before = [first.rank_ids(Query(it.query, it.question), best, config.search, 10) for it in items]
    searcher = Searcher(with_pieces(corpus, transcripts, {v for ranked in before for v in ranked}, embedder.dim),
                        embedder)
    judge = config.search.judge
    judge.videos, judge.candidates, judge.per_video, judge.video_weight = 10, 10, 1, args.video_weight
    judge.reranker.model = args.judge_model
    judged = create_method("best", config.search, judged=True)
    after, seconds = [], []
    for it in items:
        start = time.perf_counter()
        after.append(searcher.rank_ids(Query(it.query, it.question), judged, config.search, 10))
        seconds.append(time.perf_counter() - start)
    return {"qa": str(args.qa), "n": len(items), "video_weight": args.video_weight, "best": recall(items, before),
            "best+judge": recall(items, after), "judge_seconds": percentiles(seconds, suffix="")}
