import math

import pytest

from videorag.eval.datasets import EvalItem
from videorag.eval.metrics import mrr, ndcg, parse_rating, recall_any, recall_first, retrieval_scores


def _items():
    return [EvalItem("1", "q1", ["a", "b", "c"], grades={"a": 1.0, "b": 0.5, "c": 0.25}),
            EvalItem("2", "q2", ["x", "y"])]


def test_recall_first_needs_the_best_gold_video():
    items = _items()
    ranked = [["b", "a", "z"], ["z", "q", "y"]]
    assert recall_first(items, ranked, 1).per_item == [0.0, 0.0]
    assert recall_first(items, ranked, 2).per_item == [1.0, 0.0]
    assert recall_any(items, ranked, 1).per_item == [1.0, 0.0]
    assert recall_any(items, ranked, 3).value == 1.0


def test_ndcg_is_graded_and_mrr_uses_first_relevant():
    items = _items()
    perfect = ndcg(items, [["a", "b", "c"], ["x", "y"]], 3)
    assert perfect.value == pytest.approx(1.0)
    swapped = ndcg(items[:1], [["b", "a", "c"]], 3).value
    ideal = 1 + 0.5 / math.log2(3) + 0.25 / 2
    assert swapped == pytest.approx((0.5 + 1 / math.log2(3) + 0.25 / 2) / ideal)
    assert mrr(items, [["z", "c"], ["q", "w", "y"]]).per_item == [0.5, pytest.approx(1 / 3)]
    names = [s.name for s in retrieval_scores(items, [["a"], ["x"]])]
    assert names[:3] == ["recall_first@1", "recall_first@5", "recall_first@10"] and "mrr" in names


@pytest.mark.parametrize("text,expected", [("4", 4.0), (" Score: 3.5/5", 3.5), ("five", None), ("9", None)])
def test_parse_rating(text, expected):
    assert parse_rating(text) == expected
