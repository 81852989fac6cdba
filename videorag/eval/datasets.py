"""Evaluation data: the VideoRAG paper's WikiHowQA × HowTo100M bench, any QA file of the same
shape, a JSONL golden set over a user's own index, and V-RAGBench-style triplets.

Every loader returns `EvalItem`s; a transcript corpus is `{video_id: text}`.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError

DEFAULT_BENCH = Path(__file__).resolve().parents[2].parent / "shared" / "bench" / "howto100m-wikihow"


@dataclass
class EvalItem:
    """One query. `relevant` is best first (the first is the 'first gold'); `grades` is graded
    relevance per video id (higher is better); windows are optional (start, end) seconds."""

    qid: str
    query: str
    relevant: list[str]
    answer: str | None = None
    grades: dict[str, float] = field(default_factory=dict)
    windows: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    question: str | None = None  # the natural-language question, when it differs from `query`

    def grade(self, video_id: str) -> float:
        return self.grades.get(video_id, 1.0 if video_id in self.relevant else 0.0)


def _open(path: Path):
    return gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else path.open(encoding="utf-8")


def load_transcripts(path: str | Path) -> dict[str, str]:
    """JSONL (optionally .gz) of {"video_id" (or "id"), "text", ...} → {id: text}. Also reads a
    TextRAG document corpus."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(
            f"transcripts / documents file {path} not found", "pass a JSONL path (the bench ships transcripts.jsonl.gz)"
        )
    with _open(path) as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return {str(r.get("video_id", r.get("id"))): r["text"] for r in rows if r.get("text")}


def load_wikihow_qa(path: str | Path, query_field: str = "howto100m_query_text") -> list[EvalItem]:
    """A file shaped like the bench's wikihow_qa.json. Videos are graded by HowTo100M rank:
    grade = 1 / log2(1 + rank), so the search engine's first video is the most relevant."""
    import math

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"QA file {path} not found", "pass --qa PATH (e.g. the bench's wikihow_qa.json)")
    records = json.loads(path.read_text(encoding="utf-8"))
    items = []
    for r in records:
        videos = sorted(r["videos"], key=lambda v: v["rank"])
        items.append(
            EvalItem(
                qid=str(r["qid"]),
                query=r[query_field],
                relevant=[v["video_id"] for v in videos],
                answer=r.get("answer_text"),
                question=r.get("wikihow_query_text"),
                grades={v["video_id"]: 1 / math.log2(1 + v["rank"]) for v in videos},
            )
        )
    return items


def load_golden_jsonl(path: str | Path) -> list[EvalItem]:
    """A user's golden set, one JSON object a line:
    {"query": str, "relevant": [video_id, ...], "windows": {video_id: [[start, end], ...]},
     "answer": str, "id": str}  — only "query" and "relevant" are required."""
    items = []
    with _open(Path(path)) as handle:
        for n, line in enumerate(handle, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            if "query" not in row or not row.get("relevant"):
                raise ConfigError(f"{path}:{n}: needs 'query' and a non-empty 'relevant' list", "fix that line")
            windows = {k: [tuple(w) for w in v] for k, v in row.get("windows", {}).items()}
            items.append(
                EvalItem(str(row.get("id", n)), row["query"], list(row["relevant"]), row.get("answer"), windows=windows)
            )
    return items


def load_triplets(path: str | Path) -> list[EvalItem]:
    """V-RAGBench-style ⟨query, evidence chunk, answer⟩ triplets, one JSON object a line:
    {"query", "video_id", "start", "end", "answer"}."""
    items = []
    with _open(Path(path)) as handle:
        for n, line in enumerate(handle, 1):
            if line.strip():
                row = json.loads(line)
                items.append(
                    EvalItem(
                        str(row.get("id", n)),
                        row["query"],
                        [row["video_id"]],
                        row.get("answer"),
                        windows={row["video_id"]: [(row["start"], row["end"])]},
                    )
                )
    return items


def load_predictions(path: str | Path) -> dict[str, dict]:
    """The bench's reference generations: {qid: {question, gt, pred}}."""
    with _open(Path(path)) as handle:
        return json.load(handle)
