"""What each part of `videorag eval retrieval --method best` contributes, and how sensitive it is.

On the VideoRAG paper's bench (534 WikiHowQA queries × 8,648 HowTo100M transcripts):
1. ablation: first stage only, + question phrasing, + centrality re-ranking, both (= `best`);
2. sensitivity: each setting of `best` moved one step away from its default;
3. an honest estimate for unseen queries: 5-fold cross-validation that picks the setting with the
   highest R@1+R@5+R@10 on four folds and scores it on the fifth (the defaults were chosen on all
   534 queries, so the plain table above is optimistic by about the gap this shows).

    python -m benchmarks best_ablation --out results/wikihow [--qa FILE]
prints the tables and writes OUT/best_ablation.md and OUT/best_ablation.json. Transcript
embeddings come from the eval cache (the first run embeds the corpus, minutes on 2 cores).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from videorag.config import BestConfig, EmbedConfig, SearchConfig
from videorag.embed import create_embedder
from videorag.eval.cli import CACHE, bench_dir
from videorag.eval.datasets import load_transcripts, load_wikihow_qa
from videorag.eval.runner import evaluate_retrieval
from videorag.eval.transcripts import transcript_corpus
from videorag.methods import create_method
from videorag.retrieve import Query, Searcher

KEYS = ("recall_first@1", "recall_first@5", "recall_first@10")
ABLATION = {"first stage only (hybrid + phrase)": dict(question_weight=0.0, centrality_weight=0.0),
            "+ question phrasing": dict(centrality_weight=0.0),
            "+ centrality re-ranking": dict(question_weight=0.0),
            "best (both)": {}}
STEPS = {"rerank_depth": (20, 50), "centroid_power": (2.0, 4.0), "centrality_weight": (1.0, 2.0),
         "question_weight": (0.4, 0.8)}


def score(searcher: Searcher, items, default: BestConfig, name: str, overrides: dict) -> dict:
    config = SearchConfig(best=replace(default, **overrides))
    method = create_method("best", config)
    r = evaluate_retrieval(items, lambda it: searcher.rank_ids(Query(it.query, it.question), method, config), name)
    hits = {k: [row[k] for row in r["per_item"]] for k in KEYS}
    return {"name": name, **{k: r[k] for k in KEYS}, "latency_ms_p50": r["latency_ms_p50"], "hits": hits}


def cross_validated(results: list[dict], n: int, folds: int = 5, seeds: int = 5) -> dict:
    hits = [np.stack([r["hits"][k] for k in KEYS], axis=1) for r in results]   # per setting (n, 3)
    estimates = []
    for seed in range(seeds):
        order = np.random.default_rng(seed).permutation(n)
        total = np.zeros(3)
        for test in np.array_split(order, folds):
            train = np.setdiff1d(order, test)
            chosen = max(range(len(hits)), key=lambda i: hits[i][train].mean(axis=0).sum())
            total += hits[chosen][test].sum(axis=0)
        estimates.append(total / n)
    return dict(zip(KEYS, np.round(np.mean(estimates, axis=0), 4).tolist()))


def table(rows: list[dict]) -> str:
    lines = ["| setting | R@1 | R@5 | R@10 |", "|---|---|---|---|"]
    lines += [f"| {r['name']} | " + " | ".join(f"{r[k]:.3f}" for k in KEYS) + " |" for r in rows]
    return "\n".join(lines)


def options(parser) -> None:
    parser.add_argument("--qa", type=Path, default=bench_dir() / "wikihow_qa.json")


def main(run) -> dict:
    transcripts = load_transcripts(bench_dir() / "transcripts.jsonl.gz")
    items = load_wikihow_qa(run.args.qa)
    default = BestConfig()
    embedder = create_embedder(EmbedConfig())
    searcher = Searcher(transcript_corpus(transcripts, embedder, cache_dir=CACHE, show_progress=True), embedder)
    ablation = [score(searcher, items, default, name, o) for name, o in ABLATION.items()]
    sensitivity = [score(searcher, items, default, f"{key} = {value}", {key: value})
                   for key, values in STEPS.items() for value in values]
    cv = cross_validated([ablation[-1]] + sensitivity, len(items))
    sections = [("Ablation (first-gold Recall, 534 queries)", table(ablation)),
                ("Sensitivity (one setting moved from its default)", table(sensitivity)),
                ("5-fold cross-validated choice among the default and the settings above",
                 " / ".join(f"{k} {v:.3f}" for k, v in cv.items()))]
    text = "\n\n".join(f"## {title}\n\n{body}" for title, body in sections)
    print(text)
    run.out.mkdir(parents=True, exist_ok=True)
    (run.out / "best_ablation.md").write_text(
        f"# best_ablation\n\nProduced by:\n\n```\n{run.command}\n```\n\n" + text + "\n")
    return {"runs": [{k: v for k, v in r.items() if k != "hits"} for r in ablation + sensitivity],
            "cross_validated": cv}
