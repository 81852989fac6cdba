"""Questions in other languages about English videos: the demo's five how-tos indexed with the
defaults (`videorag.demo`), asked in Spanish, French, German and Italian (`across.json`). A question
in a language none of the videos is in is searched in English (`videorag.languages.searched_as`);
the plain search of the question as written (a `Query`, which is searched as it is) shows what that
changes. Per question: the right video first either way, and `ask`'s answer: the key fact stated,
written in the question's language, abstained; off-topic questions should be abstained.

    python -m benchmarks languages --across
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from videorag import VideoRAG
from videorag.eval.answers import has_fact
from videorag.languages import text_language
from videorag.retrieve.base import Query

from ..bench_footprint import _demo_videos

QUESTIONS = Path(__file__).resolve().parent / "across.json"


def across(run) -> dict:
    data = json.loads(QUESTIONS.read_text())
    rag = VideoRAG(run.work / "languages" / "demo-index", run.config())
    rag.add(_demo_videos(run.work / "languages" / "demo-videos"))
    rows = [_row(rag, q) for q in data["questions"]] + [_row(rag, q) for q in data["offtopic"]]
    answerable = [r for r in rows if r["video"]]
    totals = {key: round(float(np.mean([r[key] for r in answerable])), 2)
              for key in ("as written video@1", "video@1", "key_fact", "in_question_language", "abstained")}
    off = [r["abstained"] for r in rows if not r["video"]]
    totals["off-topic abstained"] = f"{sum(off)} of {len(off)}"
    print(json.dumps(totals), file=sys.stderr)
    return {"totals": totals, "questions": rows}


def _row(rag: VideoRAG, q: dict) -> dict:
    video = q.get("video")
    first = lambda hits: bool(hits) and Path(hits[0].path).stem == video  # noqa: E731
    answer = rag.ask(q["q"])
    row = {"q": q["q"], "video": video, "answer": answer.answer, "abstained": answer.abstained,
           "in_question_language": text_language(answer.answer) == text_language(q["q"])}
    if video:
        row |= {"as written video@1": first(rag.search(Query(q["q"]), 1)), "video@1": first(rag.search(q["q"], 1)),
                "key_fact": not answer.abstained and any(has_fact(answer.answer, f) for f in q["fact"].split("|"))}
    print(row, file=sys.stderr)
    return row
