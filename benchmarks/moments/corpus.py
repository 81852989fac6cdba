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
"""
from __future__ import annotations

from dataclasses import dataclass

SPLITS = ("dev", "test")
KINDS = ("long", "short")


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


def q(text: str, part: str, *lines: int) -> Question:
    return Question(text, part, lines)


def recordings() -> list[Recording]:
    from .long_dev import LONG_DEV
    from .long_test import LONG_TEST
    from .short_videos import SHORT

    return [*LONG_DEV, *LONG_TEST, *SHORT]
