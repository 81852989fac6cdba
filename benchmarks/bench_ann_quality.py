"""What an ANN level changes for users: WikiHowQA retrieval quality with the segment level
searched exactly, through IVF-Flat (several probe counts) and through IVF-PQ, at ≥ 50k segments.

Corpus: the first `--transcripts` WikiHowQA transcripts (default 2,000: 59,811 segments of 30
words, their real MiniLM vectors, `ann_data.real`; chunks and whole videos as in `bench_shards`).
Questions: every WikiHowQA question, both phrasings, with their precomputed vectors (no query
embedding); recall and nDCG are scored on those whose first gold video is in the corpus (its
other gold videos that are in it graded by rank; the rest of the corpus is distractors).
Method `textvideorag`, top 10 videos. Per setting: first-gold R@1/5/10, nDCG@10, and over all
questions how often the top 10 equals exact search's (as a list, as a set, mean overlap) — the
snapshot's segment level is the only difference. An IVF-PQ level fuses over short lists (its
ANN's and BM25's, `methods.text.short_alpha_fuse`); the last setting fuses it over every item as
before, and `short_lists_vs_every_item` says how often the two give the same top 10.

    python -m benchmarks ann_quality --work W [--transcripts 2000]
"""
from __future__ import annotations

import json
import time
from contextlib import contextmanager, nullcontext
from dataclasses import replace

import numpy as np

from videorag.config import SearchConfig
from videorag.eval.datasets import EvalItem, load_transcripts
from videorag.eval.metrics import ndcg, recall_first
from videorag.methods import create_method
from videorag.retrieve import Searcher
from videorag import snapshot

from . import ann_data
from .bench_ann import BENCH
from .bench_shards import _corpus, _segments

# (name, ann_min_rows, ann_compress_rows, probes, shortlist): the segment level's index; a name
# ending in EVERY fuses an IVF-PQ level over every item (what it did before short lists)
EVERY = ", fused over every item"
SETTINGS = (
    ("exact", 10**9, 10**9, None, 200),
    ("ivf-flat 16 probes", 50_000, 10**9, 16, 200),
    ("ivf-flat 32 probes (default)", 50_000, 10**9, None, 200),
    ("ivf-flat 128 probes", 50_000, 10**9, 128, 200),
    ("ivf-pq 128 probes, 200 re-scored", 50_000, 50_000, None, 200),
    ("ivf-pq 128 probes, 1000 re-scored", 50_000, 50_000, None, 1000),
    ("ivf-pq 128 probes, 200 re-scored" + EVERY, 50_000, 50_000, None, 200),
    ("ivf-pq every level", 1_000, 50_000, None, 200),  # chunks and videos compressed with the segments
    ("ivf-pq every level" + EVERY, 1_000, 50_000, None, 200),
)


def options(parser) -> None:
    parser.add_argument("--transcripts", type=int, default=2000, help="WikiHowQA transcripts (videos) embedded")


def main(run) -> dict:
    docs, _, owner = _segments(run.work, run.args.transcripts)
    vectors, query_vectors = ann_data.real(run.work, run.args.transcripts, BENCH)
    corpus = _corpus(owner, docs, vectors, 1)
    ids = list(load_transcripts(BENCH / "transcripts.jsonl.gz"))[: run.args.transcripts]
    items, queries = _questions(ids, query_vectors)
    corpus.video_ids = ids
    run.label = str(len(corpus.segments))
    results = {"command": run.command, "videos": len(ids), "segments": len(corpus.segments),
               "questions": len(queries), "scored": sum(item is not None for item in items), "settings": {}}
    exact, rankings = None, {}
    for name, min_rows, compress, probes, shortlist in SETTINGS:
        folder = run.work / "ann-quality" / name.split()[0]
        snapshot.save(replace(corpus, segments=replace(corpus.segments, ann=None)), folder, name, min_rows, compress)
        config = SearchConfig(ann_min_rows=min_rows, ann_compress_rows=compress, ann_probes=probes,
                              ann_shortlist=shortlist)
        with _fused_over_every_item() if name.endswith(EVERY) else nullcontext():
            ranked, ms = _search(snapshot.load(folder, name), queries, config)
        exact = exact or ranked
        results["settings"][name] = _figures(items, ranked, exact, ms)
        print(name, json.dumps(results["settings"][name]), flush=True)
        rankings[name] = ranked
    for key, name in (("short_lists_vs_every_item", SETTINGS[4][0]), ("all_levels_short_vs_every", SETTINGS[7][0])):
        results[key] = _agreement(rankings[name], rankings[name + EVERY])
        print(key, json.dumps(results[key]))
    return results


@contextmanager
def _fused_over_every_item():
    """An IVF-PQ level fused over every item (`candidate_alpha_fuse`), not over short lists."""
    from videorag.methods import text

    short = text.short_alpha_fuse
    text.short_alpha_fuse = text.candidate_alpha_fuse  # type: ignore[assignment]
    try:
        yield
    finally:
        text.short_alpha_fuse = short


def _questions(ids: list[str], query_vectors: np.ndarray) -> tuple[list[EvalItem | None], list[tuple[str, np.ndarray]]]:
    """Both phrasings of every item (`ann_data`'s query order: item i's are vectors 2i and
    2i + 1), each with its gold videos that are in the corpus, best first; None (searched, for
    the agreement figures, but not scored) where its first gold video is not."""
    known, items, queries = set(ids), [], []
    for i, r in enumerate(json.loads((BENCH / "wikihow_qa.json").read_text())):
        videos = [v["video_id"] for v in sorted(_videos(r), key=lambda v: v["rank"])]
        for j, field in enumerate(("howto100m_query_text", "wikihow_query_text")):
            gold = [v for v in videos if v in known]
            scored = bool(videos) and videos[0] in known
            grades = {v: 1 / np.log2(2 + k) for k, v in enumerate(videos)}
            items.append(EvalItem(f"{r['qid']}-{j}", r[field], gold, grades=grades) if scored else None)
            queries.append((r[field], query_vectors[2 * i + j]))
    return items, queries


def _videos(record: dict) -> list[dict]:
    import ast

    videos = record["videos"]
    return ast.literal_eval(videos) if isinstance(videos, str) else videos


def _search(corpus, queries, config) -> tuple[list[list[str]], list[float]]:
    searcher, method = Searcher(corpus, embedder=None), create_method("textvideorag", config)
    ranked, times = [], []
    for text, vector in queries:
        start = time.perf_counter()
        hits = searcher.search(text, method, config, 10, context=searcher.context(text, config).given(vector))
        times.append((time.perf_counter() - start) * 1000)
        ranked.append([h.video_id for h in hits])
    return ranked, times


def _agreement(ranked: list[list[str]], other: list[list[str]]) -> dict:
    """How often two settings' top 10 are the same list / set, and their mean overlap."""
    pairs = list(zip(ranked, other))
    return {"same_top10_as_exact": round(float(np.mean([a == b for a, b in pairs])), 3),
            "same_top10_set": round(float(np.mean([set(a) == set(b) for a, b in pairs])), 3),
            "overlap@10": round(float(np.mean([len(set(a) & set(b)) / 10 for a, b in pairs])), 3)}


def _figures(items, ranked, exact, ms) -> dict:
    scored = [(item, run) for item, run in zip(items, ranked) if item is not None]
    gold, runs = [item for item, _ in scored], [run for _, run in scored]
    out = {f"recall_first@{k}": round(recall_first(gold, runs, k).value, 3) for k in (1, 5, 10)}
    out["ndcg@10"] = round(ndcg(gold, runs, 10).value, 3)
    out.update(_agreement(ranked, exact))
    out["p50_ms"], out["p95_ms"] = (round(float(np.percentile(ms, p)), 1) for p in (50, 95))
    return out
