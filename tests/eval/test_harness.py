"""`videorag eval` on a small corpus the test writes: the JSON contract and each dataset format."""
from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from videorag.cli import main
from videorag.eval.datasets import load_golden_jsonl, load_triplets, load_wikihow_qa

TRANSCRIPTS = {
    "tire1": "today I will show you how to change a flat tire on your car, loosen the lug nuts first",
    "tire2": "flat tire again, jack up the car and swap in the spare wheel",
    "bread1": "how to bake sourdough bread, feed the starter and knead the dough",
    "bread2": "my sourdough loaf recipe: proof overnight and bake in a dutch oven",
    "cat1": "trimming your cat's claws without stress, use small clippers",
}
QA = [
    {"qid": 1, "howto100m_query_text": "Change a Flat Tire", "wikihow_query_text": "How to Change a Flat Tire",
     "answer_text": "Loosen the lug nuts, jack up the car and put on the spare.",
     "videos": [{"video_id": "tire1", "rank": 1}, {"video_id": "tire2", "rank": 3}]},
    {"qid": 2, "howto100m_query_text": "Bake Sourdough Bread", "wikihow_query_text": "How to Bake Sourdough Bread",
     "answer_text": "Feed the starter, knead, proof overnight and bake.",
     "videos": [{"video_id": "bread2", "rank": 2}, {"video_id": "bread1", "rank": 4}]},
]


@pytest.fixture()
def corpus(tmp_path):
    transcripts = tmp_path / "t.jsonl.gz"
    with gzip.open(transcripts, "wt") as handle:
        for vid, text in TRANSCRIPTS.items():
            handle.write(json.dumps({"video_id": vid, "source": "asr", "text": text}) + "\n")
    qa = tmp_path / "qa.json"
    qa.write_text(json.dumps(QA))
    return transcripts, qa


def test_wikihow_shape_is_graded_by_rank(corpus):
    items = load_wikihow_qa(corpus[1])
    assert items[1].relevant == ["bread2", "bread1"]
    assert items[1].grade("bread2") > items[1].grade("bread1") > items[1].grade("cat1") == 0
    assert items[0].question == "How to Change a Flat Tire"


@pytest.mark.slow
@pytest.mark.parametrize("method", ["bm25", "dense", "hybrid", "best"])
def test_retrieval_json_contract(corpus, tmp_path, capsys, method):
    argv = ["eval", "retrieval", "--transcripts", str(corpus[0]), "--qa", str(corpus[1]),
            "--method", method, "--cache-dir", str(tmp_path / "cache"), "--json", "--out", str(tmp_path / "res")]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("method", "n", "recall_first@1", "recall_first@5", "recall_first@10", "recall_any@10", "ndcg@10"):
        assert key in out
    assert out["method"] == method and out["n"] == 2
    # the ranking itself, not just "the gold is somewhere in 5 of 5": each query's two videos on
    # its topic come first, in either order (a reversed or shuffled ranking fails here)
    ranked = {row["qid"]: row["ranked"] for row in json.loads((tmp_path / "res" / "retrieval.json").read_text())
              ["results"][0]["per_item"]}
    assert set(ranked["1"][:2]) == {"tire1", "tire2"} and set(ranked["2"][:2]) == {"bread1", "bread2"}
    assert out["recall_any@1"] == 1.0 and out["mrr"] == 1.0


@pytest.mark.slow
def test_retrieval_embeds_as_many_opening_pieces_as_asked(corpus, tmp_path, capsys):
    rows = {}
    for pieces in (1, 2):
        cache = tmp_path / f"cache{pieces}"
        argv = ["eval", "retrieval", "--transcripts", str(corpus[0]), "--qa", str(corpus[1]), "--method", "dense",
                "--pieces", str(pieces), "--cache-dir", str(cache), "--json"]
        assert main(argv) == 0
        assert json.loads(capsys.readouterr().out)["recall_any@1"] == 1.0
        rows[pieces] = sorted(len(np.load(f)) for f in cache.glob("*.npy") if len(np.load(f)))
    assert rows == {1: [len(TRANSCRIPTS)], 2: [2 * len(TRANSCRIPTS)]}


@pytest.mark.slow
def test_generation_report_is_written(corpus, tmp_path, capsys):
    argv = ["eval", "generation", "--transcripts", str(corpus[0]), "--qa", str(corpus[1]), "--method", "oracle",
            "--generator", "extractive", "--out", str(tmp_path / "res"), "--json",
            "--cache-dir", str(tmp_path / "cache")]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 2 and 0 < out["ROUGE-L"] <= 100
    report = (tmp_path / "res" / "generation-oracle-extractive.md").read_text()
    assert "videorag eval generation --transcripts" in report and "| oracle | extractive | 2 |" in report
    per_item = json.loads((tmp_path / "res" / "generation-oracle-extractive.json").read_text())
    assert len(per_item["result"]["per_item"]) == 2


def test_golden_and_triplet_formats(tmp_path):
    golden = tmp_path / "g.jsonl"
    golden.write_text('{"query": "fix tire", "relevant": ["v1"], "windows": {"v1": [[3, 9]]}}\n\n'
                      '{"id": "b", "query": "bread", "relevant": ["v2", "v3"], "answer": "bake"}\n')
    items = load_golden_jsonl(golden)
    assert [i.qid for i in items] == ["1", "b"] and items[0].windows == {"v1": [(3, 9)]}
    triplets = tmp_path / "t.jsonl"
    triplets.write_text('{"query": "q", "video_id": "v9", "start": 120, "end": 240, "answer": "a"}\n')
    (item,) = load_triplets(triplets)
    assert item.relevant == ["v9"] and item.windows == {"v9": [(120, 240)]} and item.answer == "a"


@pytest.mark.slow
def test_textrag_over_a_document_corpus(corpus, tmp_path, capsys):
    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"id": "w1", "text": "To change a flat tire, loosen the lug nuts and jack up the car."}\n'
                    '{"id": "w2", "text": "Sourdough needs an active starter and a long proof."}\n')
    argv = ["eval", "generation", "--transcripts", str(corpus[0]), "--qa", str(corpus[1]), "--method", "textrag",
            "--documents", str(docs), "--generator", "extractive", "--json", "--cache-dir", str(tmp_path / "c")]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "textrag" and out["ROUGE-L"] > 10
