"""Running evaluations: retrieval (ranked video ids per query) and generation (answers scored
against references), each returning a result dict with corpus scores and per-item scores."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from tqdm.auto import tqdm

from ..analysis import tokenize
from ..methods.evidence import excerpt
from ..types import Evidence, Hit, Segment
from ..verify.claims import without_markers
from . import metrics
from .datasets import EvalItem


def evaluate_retrieval(
    items: list[EvalItem], rank: Callable[[EvalItem], list[str]], method: str, k: int = 10, show_progress: bool = False
) -> dict:
    ranked, latency = [], []
    for item in tqdm(items, disable=not show_progress, desc=f"retrieval {method}"):
        start = time.perf_counter()
        ranked.append(rank(item)[:k])
        latency.append((time.perf_counter() - start) * 1000)
    scores = metrics.retrieval_scores(items, ranked)
    result = {"method": method, "n": len(items)}
    result.update({s.name: round(s.value, 4) for s in scores})
    result["latency_ms_p50"] = round(float(np.percentile(latency, 50)), 2)
    result["latency_ms_p95"] = round(float(np.percentile(latency, 95)), 2)
    result["per_item"] = [
        {"qid": it.qid, "ranked": run, **{s.name: s.per_item[i] for s in scores}, "latency_ms": round(latency[i], 2)}
        for i, (it, run) in enumerate(zip(items, ranked, strict=True))
    ]
    return result


def transcript_evidence(video_id: str, text: str, query: str, words: int = 250, group: int = 40) -> Evidence:
    """Evidence from an untimed transcript: the `words`-long stretch around the group of
    `group` words that shares most terms with the query (times are word offsets)."""
    tokens = text.split()
    segments = [
        Segment(float(i), float(min(i + group, len(tokens))), " ".join(tokens[i : i + group]))
        for i in range(0, len(tokens), group)
    ] or [Segment(0.0, 0.0, "")]
    terms = set(tokenize(query))
    best = max(segments, key=lambda s: len(terms & set(tokenize(s.text))))
    hit = Hit(video_id, video_id, best.start, best.end, 0.0, best.text)
    return Evidence(hit, excerpt(segments, best.start, words))


def evaluate_generation(
    items: list[EvalItem],
    context: Callable[[EvalItem], list[Evidence]],
    generator,
    method: str,
    bertscore_model: str | None = None,
    judge=None,
    show_progress: bool = False,
) -> dict:
    preds, latency = [], []
    for item in tqdm(items, disable=not show_progress, desc=f"generation {method}"):
        start = time.perf_counter()
        question = item.question or item.query
        preds.append(without_markers(generator.generate(question, context(item)).answer))
        latency.append(time.perf_counter() - start)
    refs = [it.answer or "" for it in items]
    scores = [metrics.rouge_l(preds, refs), metrics.bleu4(preds, refs)]
    if bertscore_model is not None:
        scores.append(metrics.bertscore(preds, refs, model=bertscore_model or None))
    if judge is not None:
        scores.append(metrics.geval([it.question or it.query for it in items], preds, refs, judge))
    result = {"method": method, "generator": generator.name, "n": len(items)}
    result.update({s.name: round(s.value, 4) for s in scores})
    result["notes"] = {s.name: s.note for s in scores if s.note}
    result["latency_s_mean"] = round(float(np.mean(latency)), 3) if latency else 0.0
    result["per_item"] = [
        {"qid": it.qid, "pred": p, **{s.name: round(s.per_item[i], 4) for s in scores}}
        for i, (it, p) in enumerate(zip(items, preds, strict=True))
    ]
    return result


def score_predictions(predictions: dict[str, dict], method: str, bertscore_model: str | None = None) -> dict:
    """Scores of shipped predictions ({qid: {question, gt, pred}}), e.g. the paper's own."""
    qids = sorted(predictions, key=lambda q: int(q) if str(q).isdigit() else q)
    preds = [predictions[q]["pred"] for q in qids]
    refs = [predictions[q]["gt"] for q in qids]
    scores = [metrics.rouge_l(preds, refs), metrics.bleu4(preds, refs)]
    if bertscore_model is not None:
        scores.append(metrics.bertscore(preds, refs, model=bertscore_model or None))
    result = {"method": method, "n": len(qids)}
    result.update({s.name: round(s.value, 4) for s in scores})
    result["notes"] = {s.name: s.note for s in scores if s.note}
    result["per_item"] = [{"qid": q, **{s.name: round(s.per_item[i], 4) for s in scores}} for i, q in enumerate(qids)]
    return result
