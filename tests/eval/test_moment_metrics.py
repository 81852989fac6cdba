"""Moment metrics (does the hit point at the answering step?) and `eval index` over a fake
pipeline: hand-made hits, hit and miss cases."""
from __future__ import annotations

from types import SimpleNamespace

import json

import pytest

from videorag.eval.commands import evaluate_index
from videorag.eval.datasets import EvalItem
from videorag.eval.metrics import moment_mrr, moment_recall, overlaps_gold, video_hit, window_hit
from videorag.types import Hit


def hit(video: str, start: float, end: float) -> Hit:
    return Hit(video, f"/v/{video}.mp4", start, end, 1.0, "")


ITEM = EvalItem("1", "how long do I clamp the chair", ["chair"], windows={"chair": [(100.0, 112.0)]})


@pytest.mark.parametrize("candidate,expected", [
    (hit("chair", 105, 110), True),    # inside
    (hit("chair", 95, 101), True),     # overlaps the start
    (hit("chair", 111, 125), True),    # overlaps the end
    (hit("chair", 90, 130), True),     # covers the window
    (hit("chair", 0, 12), False),      # the intro naming the topic: right video, wrong moment
    (hit("chair", 88, 100), False),    # ends where the window starts: touching is no overlap
    (hit("other", 105, 110), False),   # right time, wrong video
])
def test_overlap_needs_the_gold_video_and_window(candidate, expected):
    assert overlaps_gold(ITEM, candidate) is expected


def test_window_hit_only_looks_at_the_top_hit():
    items = [ITEM, ITEM, ITEM, ITEM]
    runs = [[hit("chair", 101, 108), hit("x", 0, 5)],      # right video, right moment
            [hit("chair", 0, 10), hit("chair", 101, 108)],  # right video, wrong moment first
            [hit("x", 101, 108), hit("chair", 101, 108)],   # wrong video first
            []]                                              # nothing
    assert window_hit(items, runs).per_item == [1.0, 0.0, 0.0, 0.0]
    assert video_hit(items, runs).per_item == [1.0, 1.0, 0.0, 0.0]
    assert window_hit(items, runs).value == 0.25


def test_moment_recall_and_mrr_count_several_moments_per_video():
    wrong = [hit("chair", 0, 10), hit("chair", 20, 30), hit("x", 100, 110), hit("y", 0, 30)]
    right = hit("chair", 110, 125)
    items = [ITEM, ITEM, ITEM]
    runs = [wrong + [right], [right] + wrong, wrong * 3]  # gold at rank 5, at rank 1, never
    assert moment_recall(items, runs, 5).per_item == [1.0, 1.0, 0.0]
    assert moment_recall(items, runs, 4).per_item == [0.0, 1.0, 0.0]
    assert moment_recall(items, runs, 10).value == pytest.approx(2 / 3)
    assert moment_mrr(items, runs).per_item == [0.2, 1.0, 0.0]


class FakeRAG:
    """search(query, top_k, *, method, moments, timings) from a table of canned hits, recording
    calls; an index of 120 s chunks."""

    def __init__(self, plain: dict, moments: dict):
        self.plain, self.moments, self.calls = plain, moments, []
        self.corpus = SimpleNamespace(chunk_seconds=120.0)
        self.live = SimpleNamespace(get=lambda: self)   # the searcher: `rag.live.get()`

    def search(self, query, top_k=None, *, method=None, moments=False, timings=None):
        self.calls.append((query, method, moments))
        if timings is not None:
            timings["pool"] = 0.002
        return list((self.moments if moments else self.plain)[query])[:top_k]


def _rag():
    return FakeRAG(plain={"clamp": [hit("chair", 0, 10), hit("x", 0, 5)],
                          "bread": [hit("bread", 50, 60), hit("chair", 0, 5)],
                          "no windows": [hit("x", 0, 5)]},
                   moments={"clamp": [hit("chair", 0, 10), hit("chair", 101, 108)],
                            "bread": [hit("x", 50, 60)]})


def _items():
    return [EvalItem("a", "clamp", ["chair"], windows={"chair": [(100.0, 112.0)]}),
            EvalItem("b", "bread", ["bread"], windows={"bread": [(55.0, 70.0)]}),
            EvalItem("c", "no windows", ["x"])]


def test_evaluate_index_scores_moments_and_passes_the_method():
    rag = _rag()
    result = evaluate_index(rag, _items(), "my-method")
    assert result["method"] == "my-method" and result["n"] == 3 and result["n_windows"] == 2
    assert result["window_hit@1"] == 0.5 and result["video_hit@1"] == 1.0
    assert result["moment_recall@5"] == 0.5 and result["moment_mrr"] == 0.25
    assert result["recall_any@1"] == 1.0  # the video metrics are kept
    # chunk level: clamp's first moment lies in chair's chunk [0, 120 s), which holds the window
    # (a moment that misses it still finds its chunk); bread's moments are in another video
    assert result["chunk_recall@5"] == 0.5 and set(result["stages_ms"]) == {"pool", "total"}
    assert {m for _, m, _ in rag.calls} == {"my-method"}
    assert ("clamp", "my-method", True) in rag.calls and ("no windows", "my-method", True) not in rag.calls
    rows = {r["qid"]: r for r in result["per_item"]}
    assert rows["a"]["top"] == [["chair", 0, 10]] and rows["a"]["moment_recall@5"] == 1.0
    assert "window_hit@1" not in rows["c"]


def test_eval_index_cli_runs_one_row_per_method(tmp_path, monkeypatch, capsys):
    from videorag import pipeline
    from videorag.cli import main

    monkeypatch.setattr(pipeline, "VideoRAG", lambda *args, **kwargs: _rag())
    golden = tmp_path / "g.jsonl"
    golden.write_text('{"id": "a", "query": "clamp", "relevant": ["chair"], "windows": {"chair": [[100, 112]]}}\n'
                      '{"id": "b", "query": "bread", "relevant": ["bread"], "windows": {"bread": [[55, 70]]}}\n')
    argv = ["eval", "index", "--index", str(tmp_path / "i"), "--golden", str(golden),
            "--method", "one, two", "--json", "--out", str(tmp_path / "res")]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["method"] for r in out] == ["one", "two"]
    assert all(r["window_hit@1"] == 0.5 and r["moment_recall@10"] == 0.5 for r in out)
    report = (tmp_path / "res" / "index-eval.md").read_text()
    assert "| one | 2 | 0.500 | 1.000 | 0.500 | 0.500 |" in report and "| two |" in report


def test_eval_index_prints_its_table_without_json_or_out(tmp_path, monkeypatch, capsys):
    from videorag import pipeline
    from videorag.cli import main

    monkeypatch.setattr(pipeline, "VideoRAG", lambda *args, **kwargs: _rag())
    golden = tmp_path / "g.jsonl"
    golden.write_text('{"id": "a", "query": "clamp", "relevant": ["chair"], "windows": {"chair": [[100, 112]]}}\n')
    assert main(["eval", "index", "--index", str(tmp_path / "i"), "--golden", str(golden), "--method", "one"]) == 0
    out = capsys.readouterr().out
    assert "Moments and videos over your index" in out and "| one | 1 | 0.000 | 1.000 |" in out
    assert not (tmp_path / "res").exists()
