"""`videorag eval answers` end to end over a pipeline double: every question asked as a user asks
it (streamed), scored, the table printed."""
from __future__ import annotations

import json

from videorag.types import Answer, Citation, Claim


class StreamingRag:
    """Answers "how long…" from a window of video "paint"; abstains on everything else."""

    def __init__(self, *args, **kwargs):
        pass

    def prepare(self, question, method=None):
        return type("Asked", (), {"question": question, "verdict": None})()

    def stream(self, asked):
        question = asked.question
        if question.startswith("how long"):
            yield "Four hours "
            yield "[1]."
            yield Answer(question, "Four hours [1].", [Citation("v", "/v/paint.mp4", 20.0, 25.0)], "test",
                         claims=[Claim("Four hours.", [0], 0.8, True)])
        else:
            yield Answer(question, "The videos do not cover this.", [], "test", abstained=True)


def test_eval_answers_asks_scores_and_prints(tmp_path, monkeypatch, capsys):
    from videorag import pipeline
    from videorag.cli import main

    monkeypatch.setattr(pipeline, "VideoRAG", StreamingRag)
    golden = tmp_path / "answers.jsonl"
    rows = [{"id": "a", "question": "how long between coats", "video": "paint", "window": [21, 24],
             "answer": "four hours", "reference": "Let it dry four hours.", "split": "dev", "kind": "short"},
            {"id": "b", "question": "which brand of roller", "video": "paint", "window": None,
             "answer": None, "reference": None, "split": "dev", "kind": "short"}]
    golden.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["eval", "answers", "--index", str(tmp_path / "i"), "--golden", str(golden), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["key_fact_accuracy"] == 1.0 and out["citation_precision"] == 1.0
    assert out["abstention_recall"] == 1.0 and out["false_abstention"] == 0.0
    assert out["first_piece_ms"]["p50"] >= 0 and len(out["answers"]) == 2
    assert main(["eval", "answers", "--index", str(tmp_path / "i"), "--golden", str(golden)]) == 0
    assert "| all | 2 | 1.000 |" in capsys.readouterr().out
