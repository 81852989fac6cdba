"""V-RAGBench's chunk-level metrics: moments mapped to the chunks that hold them, a chunk relevant
when it overlaps the evidence window; Recall@5 and nDCG@5 that fail for a wrong ranking."""
from __future__ import annotations

import math

import pytest

from videorag.eval.datasets import EvalItem
from videorag.eval.vragbench import chunk_scores, ideal_count, ranked_chunks
from videorag.types import Hit


def hit(video: str, start: float, end: float) -> Hit:
    return Hit(video, f"{video}.mp4", start, end, 1.0, "")


ITEM = EvalItem("q1", "where is the valve", ["v1"], "under the sink", windows={"v1": [(250.0, 262.0)]})


def test_moments_map_to_the_chunk_of_their_midpoint_once():
    moments = [hit("v1", 250, 262), hit("v1", 245, 255), hit("v2", 10, 20), hit("v1", 100, 130)]
    assert ranked_chunks(moments, 120.0) == [("v1", 2), ("v2", 0), ("v1", 0)]


def test_recall_and_ndcg_reward_the_relevant_chunk_early():
    right_first = [hit("v1", 250, 262), hit("v2", 0, 10)]
    right_third = [hit("v2", 0, 10), hit("v3", 0, 10), hit("v1", 241, 250)]
    wrong = [hit("v1", 10, 20), hit("v2", 250, 262)]   # the right time in the wrong video counts nothing
    recall, ndcg = chunk_scores([ITEM] * 3, [right_first, right_third, wrong], 120.0)
    assert recall.per_item == [1.0, 1.0, 0.0]
    assert ndcg.per_item == pytest.approx([1.0, 1 / math.log2(4), 0.0])


def test_a_window_across_a_chunk_boundary_has_two_relevant_chunks():
    across = EvalItem("q2", "q", ["v1"], windows={"v1": [(110.0, 130.0)]})
    assert ideal_count(across, 120.0) == 2 and ideal_count(ITEM, 120.0) == 1
    _, ndcg = chunk_scores([across], [[hit("v1", 100, 110), hit("v1", 125, 130)]], 120.0)
    assert ndcg.per_item == [pytest.approx(1.0)]


class _Judge:
    """A judge double: says yes when the answer shares a word with the reference."""

    def __init__(self):
        self.prompts = []

    def complete(self, prompt: str, max_tokens: int = 8) -> str:
        self.prompts.append(prompt)
        answer = prompt.split("Answer to grade:")[1].split("\n")[0].lower()
        reference = prompt.split("Reference answer:")[1].split("\n")[0].lower()
        return "Yes." if set(answer.split()) & set(reference.split()) else "no"


@pytest.mark.slow
def test_eval_index_reports_chunk_metrics_stages_and_a_judged_pass_rate(demo_rag, sample_dir):
    from videorag.eval.commands import evaluate_index
    from videorag.eval.vragbench import generation_pass

    folder, spans = sample_dir
    video = {h.path.rsplit("/", 1)[-1][:-4]: h.video_id for h in demo_rag.search("how", top_k=20)}
    slug, steps = next(iter(spans.items()))
    items = [EvalItem(f"q{i}", step.text, [video[slug]], step.text, windows={video[slug]: [(step.start, step.end)]})
             for i, step in enumerate(steps)]
    result = evaluate_index(demo_rag, items, "carve")
    assert result["chunk_recall@5"] == 1.0 and 0 < result["chunk_ndcg@5"] <= 1.0
    assert {"pool", "rerank", "total"} <= set(result["stages_ms"])
    judge = _Judge()
    judged = generation_pass(demo_rag, items, "carve", judge)
    assert judged["n_judged"] == len(items) and judged["generation_pass"] > 0
    assert len(judge.prompts) == len(items) and judged["judge_prompt"].startswith("You grade")
