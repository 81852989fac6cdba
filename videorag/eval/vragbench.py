"""V-RAGBench's chunk-level metrics: a method's top moments mapped to the fixed chunks that hold
them (a moment belongs to the chunk of its midpoint; repeats dropped, rank kept); a chunk is
relevant when it overlaps the item's evidence window. Recall@k: any of the top k chunks is
relevant; nDCG@k: binary gains, the ideal ranking being every relevant chunk first."""

from __future__ import annotations

import math

from .datasets import EvalItem
from .metrics import Score, _mean


def ranked_chunks(moments: list, seconds: float) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for m in moments:
        key = (m.video_id, int(((m.start + m.end) / 2) // seconds))
        if key not in out:
            out.append(key)
    return out


def relevant(item: EvalItem, chunk: tuple[str, int], seconds: float) -> bool:
    video, k = chunk
    return any(k * seconds < end and (k + 1) * seconds > start for start, end in item.windows.get(video, ()))


def ideal_count(item: EvalItem, seconds: float) -> int:
    """How many chunks overlap the item's evidence windows."""
    return sum(
        len(
            {
                k
                for start, end in windows
                for k in range(int(start // seconds), math.ceil(end / seconds))
                if k * seconds < end
            }
        )
        for windows in item.windows.values()
    )


def chunk_scores(items: list[EvalItem], moments: list[list], seconds: float, k: int = 5) -> list[Score]:
    recall, ndcg = [], []
    for item, run in zip(items, moments, strict=True):
        gains = [float(relevant(item, c, seconds)) for c in ranked_chunks(run, seconds)[:k]]
        recall.append(float(any(gains)))
        ideal = sum(1 / math.log2(i + 2) for i in range(min(k, max(1, ideal_count(item, seconds)))))
        ndcg.append(sum(g / math.log2(i + 2) for i, g in enumerate(gains)) / ideal)
    return [Score(f"chunk_recall@{k}", _mean(recall), recall), Score(f"chunk_ndcg@{k}", _mean(ndcg), ndcg)]


JUDGE_PROMPT = (
    "You grade an answer to a question about a video against the reference answer.\n"
    "Question: {question}\nReference answer: {reference}\nAnswer to grade: {answer}\n"
    "Does the answer to grade give the information of the reference answer (wording may differ)? "
    "Reply with one word: yes or no."
)


def generation_pass(rag, items: list[EvalItem], method: str, judge) -> dict:
    """Answer each item with `rag.ask` and let `judge` (any generator with `complete`) say whether
    it matches the reference: the pass rate, generation time per query, and the judge's prompt."""
    import time

    import numpy as np

    passed, seconds = [], []
    for item in items:
        start = time.perf_counter()
        answer = rag.ask(item.query, method=method).answer
        seconds.append(time.perf_counter() - start)
        verdict = judge.complete(
            JUDGE_PROMPT.format(question=item.query, reference=item.answer or "", answer=answer), 3
        )
        passed.append(float(verdict.strip().lower().startswith("yes")))
    return {
        "generation_pass": round(_mean(passed), 4),
        "n_judged": len(passed),
        "generation_ms_p50": round(float(np.percentile(seconds, 50)) * 1000, 1) if seconds else None,
        "judge_prompt": JUDGE_PROMPT,
    }
