"""The moment benchmark's content, as data: narrated recordings whose questions are each answered
by one step, so a citation can be checked against that step's time span.

A `Recording` is a sequence of `Part`s (intro, sponsor read, chapters, chatter, outro); each
part's lines are spoken one after another (one line = one rendered step, whose span the renderer
returns), and its heading is what the slide shows. A `Question` names the part and the line(s)
that answer it: those lines' spans are its gold windows.

Two kinds: LONG recordings (10–20 min: an intro listing every topic, a sponsor read, chapters
with chatter between them, a recap) and SHORT how-to videos (1–2 min). Two splits with disjoint
videos: DEV (we tune on it) and TEST (reported only; its questions are written in a different
style — situational, indirect, or terse keyword queries — so tuning to DEV's phrasing shows).
Questions are paraphrases written by hand: none copies its answer's wording.

The content is data, in `recordings/`: `long_dev.json` (DEV's long recordings, questions asked
directly: "how do I…", "what…", "why…"), `long_test.json` (TEST's, other domains, questions as
situational stories, indirect asks, terse keywords) and `short.json` (the short how-tos of both
splits: a title line, the steps, a "thanks for watching" outro). Each file is a list of
{slug, title, split, kind, parts: [{key, heading, lines}], questions: [{text, part, lines}]}.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SPLITS = ("dev", "test")
KINDS = ("long", "short")
DATA = Path(__file__).resolve().parent / "recordings"
GROUPS = ("long_dev", "long_test", "short")   # recordings/<group>.json


@dataclass(frozen=True)
class Part:
    key: str                 # e.g. "intro", "faucet", "chat-1"
    heading: str             # the slide text while the part is spoken
    lines: tuple[str, ...]   # spoken one after another, one rendered step each


@dataclass(frozen=True)
class Question:
    text: str
    part: str                # key of the answering part
    lines: tuple[int, ...]   # indices of the answering lines in that part


@dataclass(frozen=True)
class Recording:
    slug: str
    title: str
    split: str               # dev | test
    kind: str                # long | short
    parts: tuple[Part, ...]
    questions: tuple[Question, ...]

    def __post_init__(self) -> None:
        if self.split not in SPLITS or self.kind not in KINDS:
            raise ValueError(f"{self.slug}: split {self.split!r} / kind {self.kind!r} not in {SPLITS} / {KINDS}")
        keys = [p.key for p in self.parts]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{self.slug}: duplicate part keys in {keys}")
        parts = dict(zip(keys, self.parts))
        for q in self.questions:
            if q.part not in parts or not q.lines or max(q.lines) >= len(parts[q.part].lines):
                raise ValueError(f"{self.slug}: question {q.text!r} points at {q.part}{list(q.lines)}, "
                                 f"which does not exist")

    def steps(self) -> list[tuple[str, int, str, str]]:
        """(part key, line index, spoken text, slide text) for every line, in order."""
        return [(p.key, i, line, p.heading) for p in self.parts for i, line in enumerate(p.lines)]


@cache
def _loaded() -> tuple[Recording, ...]:
    return tuple(_recording(row) for group in GROUPS for row in json.loads((DATA / f"{group}.json").read_text()))


def _recording(row: dict) -> Recording:
    parts = tuple(Part(p["key"], p["heading"], tuple(p["lines"])) for p in row["parts"])
    questions = tuple(Question(q["text"], q["part"], tuple(q["lines"])) for q in row["questions"])
    return Recording(row["slug"], row["title"], row["split"], row["kind"], parts, questions)


def recordings() -> list[Recording]:
    """Every recording, in the order of GROUPS and of each file."""
    return list(_loaded())
