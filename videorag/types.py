"""Result types shared by every stage and backend. Times are float seconds.

The JSON their `to_dict()` / `search_json()` build is declared in `videorag.schemas` (one model a
shape, shared by the HTTP API, MCP and the CLI's `--json`); the dicts are built here without
pydantic, which stays off the CLI's import path, and tests/test_types.py holds each to its model."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from itertools import groupby
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class Candidate:
    """A scored unit of one video (`video` = row in `Corpus.video_ids`)."""

    video: int
    unit: str  # segment | chunk | frame | caption | video
    start: float
    end: float
    score: float
    source: str  # the retriever or reranker that scored it (CARVE: the view, e.g. "text-clip")
    text: str = ""
    frames: tuple[float, ...] = ()  # times of the frames that stand for it (visual views)


@dataclass(frozen=True)
class Word:
    """One recognised word and when it is said (Whisper's word timestamps)."""

    start: float
    end: float
    text: str


@dataclass(frozen=True)
class Segment:
    """A span of a video's text: an ASR segment, a subtitle cue or a fixed-window chunk; an ASR
    segment carries its words' times (`words`, empty where none are known: subtitles, chunks)."""

    start: float
    end: float
    text: str
    words: tuple[Word, ...] = field(default=(), compare=False, repr=False)


class Transcript(list):
    """A video's segments (a list of `Segment`) and the language they are in: an ISO 639-1 code,
    with the probability language identification gave it (None: not identified); for speech in
    another language than English, `translation`: what it says in English, timed (Whisper's
    translation of the same audio; [] where there is none)."""

    def __init__(
        self, segments=(), language: str = "en", probability: float | None = None, translation: list | None = None
    ):
        super().__init__(segments)
        self.language = language
        self.probability = probability
        self.translation: list[Segment] = translation or []


@dataclass(frozen=True)
class Frame:
    """One sampled frame: its timestamp and a JPEG encoding of the picture."""

    t: float
    jpeg: bytes


def seconds(t: float) -> float:
    """A time as JSON carries it: to the millisecond (no float noise like 23.400000000000002)."""
    return round(float(t), 3)


def clock(t: float, up: bool = False) -> str:
    """m:ss (h:mm:ss from an hour on), the second rounded down (`up`: up)."""
    t = max(0, math.ceil(t - 1e-9) if up else math.floor(t + 1e-9))
    return f"{t // 3600}:{t // 60 % 60:02d}:{t % 60:02d}" if t >= 3600 else f"{t // 60}:{t % 60:02d}"


def span(start: float, end: float) -> str:
    """How a moment is shown everywhere (CLI, prompts, MCP text, the web page through each
    citation's and hit's `span`): from the second it starts in to the second it ends in, so the
    span shown holds the whole moment (25.4–29.2 s: 0:25–0:30)."""
    return f"{clock(start)}–{clock(end, up=True)}"


@dataclass(frozen=True)
class Chapter:
    """A stretch of a video about one topic (`videorag.chapters`), with a short title made of
    words said in it ("" where none stands out)."""

    start: float
    end: float
    title: str

    def to_dict(self) -> dict:
        """`schemas.Chapter`."""
        return {
            "start": seconds(self.start),
            "end": seconds(self.end),
            "span": span(self.start, self.end),
            "title": self.title,
        }


@dataclass(frozen=True)
class Citation:
    video_id: str
    path: str
    start: float
    end: float

    def to_dict(self) -> dict:
        """`schemas.Citation`."""
        return {
            "video_id": self.video_id,
            "path": self.path,
            "start": seconds(self.start),
            "end": seconds(self.end),
            "span": span(self.start, self.end),
        }


@dataclass(frozen=True)
class Hit:
    """One retrieved video, pointing at its best-matching segment."""

    video_id: str
    path: str
    start: float
    end: float
    score: float
    text: str
    # below the relevance floor (`SearchConfig.weak_below`), or ranked under a hit that is: may not be about the query
    weak: bool = False

    def to_dict(self) -> dict:
        """`schemas.Hit`: its citation's fields, then its own."""
        return {
            **self.citation.to_dict(),
            "score": float(self.score),
            "text": self.text,
            "weak": self.weak,
        }

    @property
    def citation(self) -> Citation:
        return Citation(self.video_id, self.path, self.start, self.end)


class Hits(list):
    """Hits, best first, from a sharded search (`videorag.shard`): `missing` names the shards
    that did not answer in time (empty: the result is whole)."""

    missing: tuple[str, ...] = ()


def search_json(query: str, hits: list[Hit]) -> dict:
    """The one JSON shape of search results (CLI `--json`, HTTP API, MCP): `schemas.SearchResult`."""
    return {
        "query": query,
        "results": [h.to_dict() for h in hits],
        "missing_shards": list(getattr(hits, "missing", ())),
    }


# Why a claim is unsupported (`Claim.flag`), in words: each way it is shown (CLI, MCP, page) says this
FLAGS = {
    "not_said": "its cited moments do not say this",
    "off_question": "its cited moment says this, but it may not answer the question",
}


def flag_words(flag: str | None) -> str:
    """Why an unsupported claim is, in words (a claim of an older server has no flag: not said)."""
    return FLAGS.get(flag or "", FLAGS["not_said"])


@dataclass
class Claim:
    """One sentence of an answer, the citations it rests on (positions in `Answer.citations`; its
    JSON numbers them from 1, as the answer's `[n]` markers do)
    and how well the judge finds them to support it (0–1; None: not verified)."""

    text: str
    citations: list[int]
    support: float | None = None
    supported: bool | None = None  # support at or above the verifier's threshold (None: not verified)
    checks: dict[str, float] | None = None  # what support is computed from (`videorag.verify.support`)
    flag: str | None = None  # why it is unsupported: a key of `FLAGS` (None: supported or not verified)

    def to_dict(self) -> dict:
        """`schemas.Claim`."""
        checks = None if self.checks is None else {k: round(float(v), 3) for k, v in self.checks.items()}
        return {
            "text": self.text,
            "citations": [i + 1 for i in self.citations],
            "support": None if self.support is None else round(float(self.support), 3),
            "supported": self.supported,
            "checks": checks,
            "flag": self.flag,
        }


@dataclass
class Answer:
    question: str
    answer: str
    citations: list[Citation]
    generator: str
    judge: str | None = None  # the judge that chose the cited moments ("backend:model"), None: retrieval alone
    claims: list[Claim] = field(default_factory=list)
    abstained: bool = False  # the videos do not cover the question: no answer was given
    answerable: float | None = None  # P(the moments answer the question) (`videorag.answerability`)

    def to_dict(self) -> dict:
        """`schemas.Answer`."""
        return {
            "question": self.question,
            "answer": self.answer,
            "citations": [c.to_dict() for c in self.citations],
            "generator": self.generator,
            "judge": self.judge,
            "claims": [c.to_dict() for c in self.claims],
            "parts": answer_parts(self.answer, self.claims, len(self.citations)),
            "abstained": self.abstained,
            "answerable": self.answerable,
        }


_MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")  # [1] or [2, 3]: the moments cited, numbered from 1
_MARKED = re.compile(r"\s*" + _MARKER.pattern)  # a marker and the space before it (a claim's text has neither)


def answer_parts(answer: str, claims: list[Claim], moments: int) -> list[dict]:
    """`answer` in the pieces a page shows it in (`schemas.AnswerPart`), so that it cuts nothing
    itself: each `[n]` marker citing one of its `moments` apart, with the numbers it cites; the
    words between, each with the claim (numbered from 1) whose stretch of the answer they are in.
    A claim's stretch is where its text stands, the markers aside, the claims found in order (a
    claim the answer does not hold has none). Joined, the parts' texts are `answer`."""
    marks: list[list[int]] = []
    mark_of: list[int | None] = [None] * len(answer)
    for m in _MARKER.finditer(answer):
        cited = [n for n in map(int, m.group(1).split(",")) if 0 < n <= moments]  # a model may invent a number
        if cited:
            mark_of[m.start() : m.end()] = [len(marks)] * (m.end() - m.start())
            marks.append(cited)
    claim_of: list[int | None] = [None] * len(answer)
    for number, (start, end) in _claim_stretches(answer, claims):
        claim_of[start:end] = [number] * (end - start)
    parts = []
    for (claim, mark), run in groupby(range(len(answer)), key=lambda i: (claim_of[i], mark_of[i])):
        at = list(run)
        parts.append(
            {"text": answer[at[0] : at[-1] + 1], "claim": claim, "citations": [] if mark is None else marks[mark]}
        )
    return parts


def _claim_stretches(answer: str, claims: list[Claim]) -> list[tuple[int, tuple[int, int]]]:
    """(claim number from 1, (start, end) in `answer`) for each claim found, in order: from its
    first character to its last, the markers inside included."""
    plain: list[str] = []  # the answer without its markers
    where: list[int] = []  # each of its characters' place in the answer
    at = 0
    for m in _MARKED.finditer(answer):
        plain.append(answer[at : m.start()])
        where.extend(range(at, m.start()))
        at = m.end()
    plain.append(answer[at:])
    where.extend(range(at, len(answer)))
    text, found, cursor = "".join(plain), [], 0
    for number, claim in enumerate(claims, 1):
        said = claim.text.strip()
        start = text.find(said, cursor) if said else -1
        if start >= 0:
            cursor = start + len(said)
            found.append((number, (where[start], where[cursor - 1] + 1)))
    return found


@dataclass
class FileResult:
    """What ingest did with one file: status is 'added', 'unchanged', 'moved', or 'failed'."""

    path: str
    status: str
    video_id: str | None = None
    error: str | None = None
    duration: float = 0.0
    warnings: list[str] = field(default_factory=list)  # what was read only in part, or dropped


@dataclass
class IngestReport:
    files: list[FileResult] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for f in self.files if f.status == status)

    @property
    def failed(self) -> list[FileResult]:
        return [f for f in self.files if f.status == "failed"]

    @property
    def partial(self) -> bool:
        return bool(self.failed)

    def summary(self) -> str:
        parts = [f"{self.count(s)} {s}" for s in ("added", "moved", "unchanged", "failed")]
        return ", ".join(parts)


@dataclass(frozen=True)
class Caption:
    """A sampled frame described in words (on-screen text or a VLM caption, with what is said
    around it), at the frame's timestamp."""

    t: float
    text: str


@dataclass
class ChunkView:
    """CARVE's visual views of one chunk (a fixed window of the video): its keyframes (times and
    frame vectors) and one clip vector."""

    start: float
    end: float
    keyframes: list[float]
    keyframe_vectors: np.ndarray  # (len(keyframes), visual dim)
    vector: np.ndarray  # (visual dim,) the clip embedding


@dataclass
class Evidence:
    """One retrieved video (or, for CARVE, one chunk) as the generator sees it: the hit, a
    transcript excerpt, frames. `view` is CARVE's winning view of the chunk: a generator that
    reads images shows a visual view's frames instead of its text; the citation is the hit's
    moment."""

    hit: Hit
    segments: list[Segment]
    frames: list[Frame] = field(default_factory=list)
    view: str | None = None
    screen: str = ""  # what the screen shows during the excerpt (OCR captions), when the index has them
    steps: list = field(default_factory=list)  # the judged steps inside it (retrieve.base.Candidate,
    # their own span and sentence, score P(yes)), best first

    @property
    def shows_frames(self) -> bool:
        return self.view in ("visual-frame", "visual-clip") and bool(self.frames)

    @property
    def citation(self) -> Citation:
        if not self.segments or self.view:
            return self.hit.citation
        return Citation(self.hit.video_id, self.hit.path, self.segments[0].start, self.segments[-1].end)

    @property
    def transcript(self) -> str:
        return " ".join(s.text for s in self.segments)
