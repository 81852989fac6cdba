"""Dump what search and ask give for a golden set — each method's hits, moments and generation
evidence per question — as JSON, so two versions of the code can be compared on the same index
(run it under each, then diff the files: a refactoring that keeps behaviour gives identical ones).

    python -m tools.search_dump INDEX GOLDEN.jsonl [GOLDEN.jsonl ...] --out dump.json
        [--methods textvideorag,best,dense,carve,rag-adapter] [--judge]

The index is copied (without its search snapshot) to a temporary folder first, so each version
builds its own snapshot and the original is left alone. CARVE reranks with e5 (no judge model
needed); `--judge` also dumps judged plain search.
"""
from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from videorag import Config, VideoRAG
from videorag.config import apply_overrides


def _span(hit) -> list:
    return [hit.video_id, round(hit.start, 2), round(hit.end, 2), round(hit.score, 4)]


def _evidence(rag: VideoRAG, question: str, method: str) -> list:
    return [[e.citation.video_id, round(e.citation.start, 2), round(e.citation.end, 2), e.transcript, e.screen, e.view]
            for e in rag.evidence(question, method=method)]


def dump(rag: VideoRAG, questions: list[str], methods: list[str], judge: bool) -> dict:
    out = {m: [{"plain": [_span(h) for h in rag.search(q, method=m, judge=False)],
                "moments": [_span(h) for h in rag.search(q, method=m, moments=True, judge=False)],
                "evidence": _evidence(rag, q, m)} for q in questions] for m in methods}
    if judge:
        out["judged"] = [[_span(h) for h in rag.search(q, judge=True)] for q in questions]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("index", type=Path)
    parser.add_argument("golden", type=Path, nargs="+", help="JSONL files with a `query` per line")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--methods", default="textvideorag,best,dense,carve,rag-adapter")
    parser.add_argument("--judge", action="store_true", help="also judged plain search (the judge's model installed)")
    args = parser.parse_args()
    questions = [json.loads(line)["query"] for path in args.golden for line in path.read_text().splitlines() if line]
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "index"
        shutil.copytree(args.index, copy, ignore=shutil.ignore_patterns("search"))
        rag = VideoRAG(copy, apply_overrides(Config(), ["search.carve.reranker.backend=e5"]))
        args.out.write_text(json.dumps(dump(rag, questions, args.methods.split(","), args.judge)))
    print(f"wrote {args.out}: {len(questions)} questions")


if __name__ == "__main__":
    main()
