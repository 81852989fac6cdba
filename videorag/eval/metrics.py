"""Metrics, each returning the corpus score and the per-item scores.

Generation metrics follow the VideoRAG paper's definitions exactly (its bench README):
ROUGE-L = rouge_score RougeScorer(['rougeL'], use_stemmer=True) F-measure × 100;
BLEU-4 = nltk sentence_bleu([gt.split()], pred.split(), smoothing method1) × 100;
BERTScore F1 × 100 with a named model (the paper's roberta-large is not installable offline);
G-Eval = the paper's Table 14 prompt, 1–5, through any generator backend as judge.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from ..registry import require
from .datasets import EvalItem


@dataclass
class Score:
    name: str
    value: float
    per_item: list[float] = field(default_factory=list)
    note: str = ""


def _mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else 0.0


# -- generation ---------------------------------------------------------------------------------
def rouge_l(preds: list[str], refs: list[str]) -> Score:
    scorer = require("rouge_score.rouge_scorer", "eval").RougeScorer(["rougeL"], use_stemmer=True)
    per = [scorer.score(r, p)["rougeL"].fmeasure * 100 for p, r in zip(preds, refs, strict=True)]
    return Score("ROUGE-L", _mean(per), per)


def bleu4(preds: list[str], refs: list[str]) -> Score:
    bleu = require("nltk.translate.bleu_score", "eval")
    smooth = bleu.SmoothingFunction().method1
    per = [
        bleu.sentence_bleu([r.split()], p.split(), smoothing_function=smooth) * 100
        for p, r in zip(preds, refs, strict=True)
    ]
    return Score("BLEU-4", _mean(per), per)


def bertscore(
    preds: list[str], refs: list[str], model: str | None = None, num_layers: int | None = None, batch_size: int = 32
) -> Score:
    """BERTScore F1 × 100. Default model: the bundled all-MiniLM-L6-v2 (layer 6) — NOT the paper's
    roberta-large, so its numbers are not comparable with the paper's; the note says which."""
    from ..models import MINILM_L6, resolve

    bert_score = require("bert_score", "eval")
    path, label = resolve(model, MINILM_L6)
    layers = num_layers or (6 if label == MINILM_L6.name else None)
    _, _, f1 = bert_score.score(
        preds, refs, model_type=path, num_layers=layers, batch_size=batch_size, verbose=False, lang="en"
    )
    per = (f1.numpy() * 100).tolist()
    return Score("BERTScore", _mean(per), per, note=f"model={label}, layer={layers}, no rescale")


GEVAL_PROMPT = """You are tasked with evaluating a Generated Response to the given Question based on \
its overall quality compared to a provided Ground Truth Answer.

Evaluation Criteria:

1. Carefully read the Ground Truth and the Generated Response.

2. Assess how well the Generated Response matches the Ground Truth. Please penalize the Generated \
Response that has the far different content and style and is largely longer than the Ground Truth.

3. Provide an overall score (1-5) based on your evaluation.

Question: {question}

Ground Truth Answer: {reference}

Generated Response: {answer}

Score (1-5):"""  # the paper's Table 14, verbatim; the last line asks for the number


def parse_rating(text: str) -> float | None:
    match = re.search(r"[1-5](?:\.\d+)?", text)
    return float(match.group()) if match else None


def geval(questions: list[str], preds: list[str], refs: list[str], judge) -> Score:
    """G-Eval through `judge(prompt) -> str` (any generator backend as a completion function).
    Unparseable ratings count as 1 (the lowest) and are reported in the note."""
    per, failed = [], 0
    for q, p, r in zip(questions, preds, refs, strict=True):
        rating = parse_rating(judge(GEVAL_PROMPT.format(question=q, reference=r, answer=p)))
        failed += rating is None
        per.append(rating or 1.0)
    return Score("G-Eval", _mean(per), per, note=f"{failed} unparseable ratings scored 1")


# -- retrieval ----------------------------------------------------------------------------------
def recall_first(items: list[EvalItem], ranked: list[list[str]], k: int) -> Score:
    """The paper's Recall@k: hit when the first (best-ranked) gold video is in the top k."""
    per = [float(bool(item.relevant) and item.relevant[0] in run[:k]) for item, run in zip(items, ranked, strict=True)]
    return Score(f"recall_first@{k}", _mean(per), per)


def recall_any(items: list[EvalItem], ranked: list[list[str]], k: int) -> Score:
    per = [float(bool(set(item.relevant) & set(run[:k]))) for item, run in zip(items, ranked, strict=True)]
    return Score(f"recall_any@{k}", _mean(per), per)


def ndcg(items: list[EvalItem], ranked: list[list[str]], k: int) -> Score:
    """nDCG@k with graded relevance (for the bench: 1/log2(1 + search-engine rank))."""
    per = []
    for item, run in zip(items, ranked, strict=True):
        dcg = sum(item.grade(v) / math.log2(i + 2) for i, v in enumerate(run[:k]))
        ideal = sorted((item.grade(v) for v in item.relevant), reverse=True)[:k]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        per.append(dcg / idcg if idcg else 0.0)
    return Score(f"ndcg@{k}", _mean(per), per)


def mrr(items: list[EvalItem], ranked: list[list[str]]) -> Score:
    per = []
    for item, run in zip(items, ranked, strict=True):
        relevant = set(item.relevant)
        per.append(next((1 / (i + 1) for i, v in enumerate(run) if v in relevant), 0.0))
    return Score("mrr", _mean(per), per)


def retrieval_scores(items: list[EvalItem], ranked: list[list[str]], cutoffs=(1, 5, 10)) -> list[Score]:
    scores = [recall_first(items, ranked, k) for k in cutoffs]
    scores += [recall_any(items, ranked, k) for k in cutoffs]
    scores += [ndcg(items, ranked, k) for k in cutoffs]
    return [*scores, mrr(items, ranked)]


# -- moments (where in the video) ---------------------------------------------------------------
def overlaps_gold(item: EvalItem, hit) -> bool:
    """A hit (anything with video_id, start, end) lands on the answer: its video is gold and its
    [start, end] overlaps one of that video's gold windows (touching ends do not count)."""
    if hit.video_id not in item.relevant:
        return False
    return any(hit.start < end and hit.end > start for start, end in item.windows.get(hit.video_id, ()))


def window_hit(items: list[EvalItem], hits: list[list]) -> Score:
    """window_hit@1: the top hit of plain search is a gold video AND points at a gold window."""
    per = [float(bool(run) and overlaps_gold(item, run[0])) for item, run in zip(items, hits, strict=True)]
    return Score("window_hit@1", _mean(per), per)


def video_hit(items: list[EvalItem], hits: list[list]) -> Score:
    """video_hit@1: the top hit of plain search is a gold video, wherever it points."""
    per = [float(bool(run) and run[0].video_id in item.relevant) for item, run in zip(items, hits, strict=True)]
    return Score("video_hit@1", _mean(per), per)


def moment_recall(items: list[EvalItem], moments: list[list], k: int) -> Score:
    """moment_recall@k: any of the top k moments (several may come from one video) overlaps a
    gold window of a gold video."""
    per = [float(any(overlaps_gold(item, m) for m in run[:k])) for item, run in zip(items, moments, strict=True)]
    return Score(f"moment_recall@{k}", _mean(per), per)


def moment_mrr(items: list[EvalItem], moments: list[list]) -> Score:
    """Mean reciprocal rank of the first moment that overlaps a gold window (0 when none does)."""
    per = [
        next((1 / (i + 1) for i, m in enumerate(run) if overlaps_gold(item, m)), 0.0)
        for item, run in zip(items, moments, strict=True)
    ]
    return Score("moment_mrr", _mean(per), per)


def moment_scores(items: list[EvalItem], hits: list[list], moments: list[list], cutoffs=(5, 10)) -> list[Score]:
    """The moment metrics, for items that have gold windows (the caller filters)."""
    return (
        [window_hit(items, hits), video_hit(items, hits)]
        + [moment_recall(items, moments, k) for k in cutoffs]
        + [moment_mrr(items, moments)]
    )
