"""The support benchmark's labels: a citations run's claims and an answers run's, labelled against
the gold items the citations run carries, each claim of a question counted once."""
from __future__ import annotations

import gzip
import json

from benchmarks.bench_support import labelled, uncalibrated

ITEM = {"id": "pot#1", "split": "dev", "video": "repot", "window": [10.0, 20.0], "answer": "5 cm wider"}
CHECKS = {"answers": 0.9, "says": 0.8, "overlap": 0.5}


def _claim(text, right, support=0.8):
    return {"id": "pot#1", "split": "dev", "text": text, "right": right, "support": support,
            "checks": {**CHECKS, "answers": support}}


def _answer(text, start):
    return {"id": "pot#1", "abstained": False, "claims": [{"text": text, "citations": [1], "checks": CHECKS}],
            "citations": [{"path": "/v/repot.mp4", "start": start, "end": start + 4}]}


def test_answers_runs_add_their_own_claims_labelled_by_the_citations_items(tmp_path):
    citations = {"rows": {"moments words": {"items": [ITEM], "claims": [
        _claim("It is 5 cm wider.", True), _claim("Water it well.", False, support=0.1)]}}}
    answers = {"rows": {"generate.backend=llamacpp": {"answers": [
        _answer("It is 5 cm wider.", 12.0),            # already labelled: counted once
        _answer("The pot is 5 cm wider.", 12.0),       # the key fact on the window: right
    ]}}}
    later = {"rows": {"generate.backend=llamacpp": {"answers": [_answer("Use a bigger pot.", 40.0)]}}}  # off the window
    paths = []
    for name, data in (("citations.json.gz", citations), ("answers.json.gz", answers), ("later.json", later)):
        path = tmp_path / name
        path.write_bytes(gzip.compress(json.dumps(data).encode()) if name.endswith(".gz") else json.dumps(data).encode())
        paths.append(path)
    claims = labelled(paths)
    assert [(c["text"], c["right"], c["source"]) for c in claims] == [
        ("It is 5 cm wider.", True, "citations.json.gz"), ("Water it well.", False, "citations.json.gz"),
        ("The pot is 5 cm wider.", True, "answers.json.gz"), ("Use a bigger pot.", False, "later.json")]
    flags = uncalibrated(claims)
    assert flags["uncalibrated"]["flagged_wrong"] == 1 and flags["uncalibrated"]["passed_wrong"] == 1
    assert flags["uncalibrated, citations.json.gz"]["precision"] == 1.0
