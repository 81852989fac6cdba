"""The index's invariants, checked and repaired: one `videos` row per id, every video with its
segments and chunks (and, when its frames were embedded, its visual row), no orphan rows."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .store import VideoIndex


@dataclass(frozen=True)
class Problem:
    kind: str  # duplicate | incomplete | orphan
    video_id: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind:<10} {self.video_id}  {self.detail}"


def check(index: VideoIndex) -> list[Problem]:
    """Every broken invariant, one Problem per video and kind."""
    counts = Counter(index.row_ids("videos").to_pylist())
    problems = [Problem("duplicate", v, f"{n} rows in videos") for v, n in sorted(counts.items()) if n > 1]
    kinds = index.unit_kinds()
    visual, framed = set(index.row_ids("visual").to_pylist()), set(index.row_ids("frame_vectors").to_pylist())
    for video_id in sorted(counts):
        missing = [k for k in ("segment", "chunk") if (video_id, k) not in kinds]
        if video_id in framed and video_id not in visual:  # audio-only videos have neither
            missing.append("visual vector")
        if missing:
            problems.append(Problem("incomplete", video_id, "no " + ", no ".join(missing)))
    for table, ids in sorted(index.orphans().items()):
        problems += [Problem("orphan", v, f"rows in {table} without a video") for v in sorted(ids)]
    return problems


def repair(index: VideoIndex, problems: list[Problem]) -> list[str]:
    """Fix what `check` found, under the writer lock; returns one line per action. Incomplete
    videos are removed, so the next `videorag index` of their files adds them again whole."""
    actions = []
    with index.writer():
        for problem in problems:
            if problem.kind == "duplicate":
                index.keep_one_row(problem.video_id)
                actions.append(f"kept one videos row of {problem.video_id}")
            elif problem.kind == "incomplete":
                index.remove(problem.video_id)
                actions.append(f"removed incomplete {problem.video_id} (re-run videorag index to add it again)")
        if any(p.kind == "orphan" for p in problems):
            actions.append(f"removed the orphan rows of {index.remove_orphans()} videos")
    return actions
