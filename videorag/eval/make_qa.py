"""Synthetic QA triplets over a user's own index (`videorag eval make-qa`).

For up to `per_video` transcript chunks per video (the index's 120 s `chunk` units, spread over
the video, chosen with a seeded RNG) a model-backed generator is asked for ONE question and a short
answer (the VideoRAG paper's Table 13 prompt, cut down to one chunk and to two `Q:` / `A:` lines).
Each reply is then checked, not trusted:

- parse: a `Q:` line, then an `A:` line (`Question:` / `Answer:` too), both non-empty;
- lengths: the question 3..30 words, the answer at most 25 (a longer one is a rambling or
  repeating reply, not a short answer);
- question: no reference to "this video" / "the speaker" / "the transcript", not the prompt's
  example question again (small models copy it), and not giving its own answer away (the
  answer's content words are not all in the question);
- support: at least 60 % of the answer's content words (stop words out, Porter stems: the BM25
  tokeniser) occur in the chunk's transcript;
- anchor: the question shares at least two content words with the chunk that are not in the
  video's file name (a question only about the video's topic, or a generic "what is the purpose
  of the test?", cannot point a search at one moment);
- de-duplication: a question whose content-word set has Jaccard >= 0.6 with an earlier kept
  question (any video) is dropped.

The evidence window of a kept item is the stretch of the chunk's segments, at most 30 s long,
that holds the most of the answer's words (ties: the shortest, then the one with most question
words); the whole chunk when no segment holds any. Output rows are V-RAGBench triplets
`{id, query, video_id, start, end, answer}` (`load_triplets`, `videorag eval index --triplets`).
"""

from __future__ import annotations

import json
import logging
import random
import re
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from ..analysis import tokenize
from ..errors import ConfigError, GenerationError
from ..generate import Completes, CompletesWithImages
from ..types import Frame, Segment

log = logging.getLogger(__name__)

QA_PROMPT = """\
You write one question-answer pair to test a search engine over a large collection of videos.
Below is a two-minute excerpt of one video's transcript. Write ONE question that this excerpt
answers, and its short answer.
- The question must make sense on its own: never say "this video", "the speaker" or "the excerpt";
  name the task, tools or materials so that a search could find this excerpt among many videos.
- Ask about a step, what comes before or after it, a tool or material and its purpose, an amount,
  a time, or the result of an action.
- The answer is stated in the excerpt: a few words, at most one sentence, in the excerpt's words.
- Reply with exactly two lines and nothing else: "Q: " and the question, then "A: " and the answer.

Example excerpt: ... let the glue set for about twenty minutes before you sand the joint,
otherwise the sandpaper clogs ...
Q: {example_question}
A: About twenty minutes.

Excerpt: {transcript}
"""
EXAMPLE_QUESTION = "How long should wood glue set before sanding the joint?"
PROMPT_WORDS = 400  # transcript words given to the model, at most
MAX_TOKENS = 80  # reply length cap
MAX_FRAMES = 8  # images of the chunk sent to generators that take them
MIN_CHUNK_TERMS = 12  # content words a chunk needs to be asked about
QUESTION_WORDS = (3, 30)  # allowed question length, in words
ANSWER_WORDS = 25  # longest answer, in words
MIN_ANCHORS = 2  # chunk words (beyond the video's topic) the question must name
SUPPORT_MIN = 0.6  # share of the answer's content words found in the chunk
DEDUPE_JACCARD = 0.6  # questions this similar (content-word sets) are duplicates
WINDOW_SECONDS = 30.0  # longest evidence window

_LINE = re.compile(r"^\s*(q|question|a|answer)\s*[:.]\s*(.*)$", re.IGNORECASE)
_VIDEO_REF = re.compile(r"\b(this|the) (video|clip|speaker|narrator|transcript|excerpt)\b", re.IGNORECASE)


@dataclass
class QAItem:
    """One chunk asked: the reply, the parsed pair, its evidence window and why it was dropped."""

    id: str
    video_id: str
    chunk: Segment
    reply: str = ""
    question: str | None = None
    answer: str | None = None
    start: float = 0.0
    end: float = 0.0
    dropped: str | None = None  # None: kept

    def triplet(self) -> dict:
        return {
            "id": self.id,
            "query": self.question,
            "video_id": self.video_id,
            "start": round(self.start, 3),
            "end": round(self.end, 3),
            "answer": self.answer,
        }

    def record(self) -> dict:
        """What a rejects file shows of a dropped item: the reason, the reply and the chunk."""
        return {
            "id": self.id,
            "video_id": self.video_id,
            "dropped": self.dropped,
            "question": self.question,
            "answer": self.answer,
            "reply": self.reply,
            "chunk": [self.chunk.start, self.chunk.end],
        }


@dataclass
class QASet:
    items: list[QAItem]
    videos: int

    @property
    def kept(self) -> list[QAItem]:
        return [it for it in self.items if it.dropped is None]

    @property
    def dropped(self) -> list[QAItem]:
        return [it for it in self.items if it.dropped is not None]

    def summary(self) -> dict:
        """Counts at each stage: asked (replies received), parsed, supported (passed the
        question/support/anchor checks), kept (after de-duplication), and drop reasons."""
        reasons = Counter(it.dropped for it in self.items if it.dropped)
        asked = len(self.items) - reasons["generator error"]
        parsed = asked - reasons["unparseable"]
        kept = len(self.kept)
        return {
            "videos": self.videos,
            "chunks": len(self.items),
            "asked": asked,
            "parsed": parsed,
            "supported": kept + reasons["duplicate"],
            "kept": kept,
            "dropped": dict(reasons),
        }


def summary_line(summary: dict, out: str) -> str:
    errors = summary["dropped"].get("generator error", 0)
    return (
        f"make-qa: {summary['asked']} chunks asked over {summary['videos']} videos"
        + (f" ({errors} more got no reply)" if errors else "")
        + f", {summary['parsed']} replies parsed, {summary['supported']} kept after the support filter, "
        f"{summary['kept']} after de-dup -> {out}"
    )


# -- the checks ----------------------------------------------------------------------------
def parse_reply(reply: str) -> tuple[str, str] | None:
    """(question, answer): the first `Q:` line and the first `A:` line after it. A reply whose
    first line has no label continues the prompt's trailing `Q:`. None when either is missing."""
    lines = [line.strip() for line in reply.replace("*", "").strip().splitlines()]
    labels = [
        (n, m.group(1)[0].lower(), m.group(2).strip()) for n, line in enumerate(lines) if (m := _LINE.match(line))
    ]
    questions = [(n, text) for n, label, text in labels if label == "q"]
    if questions:
        at, question = questions[0]
    elif lines and not (labels and labels[0][0] == 0):
        at, question = 0, lines[0]
    else:
        return None
    answer = next((text for n, label, text in labels if label == "a" and n > at), "")
    return (question, answer) if question and answer else None


def check_item(question: str, answer: str, chunk_text: str, topic: str) -> str | None:
    """Why the pair cannot be kept (see the module docstring), None when it can."""
    if not QUESTION_WORDS[0] <= len(question.split()) <= QUESTION_WORDS[1]:
        return "question length"
    if len(answer.split()) > ANSWER_WORDS:
        return "answer length"
    if _VIDEO_REF.search(question):
        return "refers to the video"
    answer_terms, question_terms = set(tokenize(answer)), set(tokenize(question))
    if similar(question_terms, set(tokenize(EXAMPLE_QUESTION))):
        return "copies the example"
    if not answer_terms or answer_terms <= question_terms:
        return "answer in question"
    chunk_terms = set(tokenize(chunk_text))
    if len(answer_terms & chunk_terms) < SUPPORT_MIN * len(answer_terms):
        return "unsupported"
    if len((question_terms & chunk_terms) - set(tokenize(topic))) < MIN_ANCHORS:
        return "off the chunk"
    return None


def evidence_window(segments: list[Segment], chunk: Segment, answer: str, question: str) -> tuple[float, float]:
    """The span, at most WINDOW_SECONDS long and inside the chunk, of the chunk's segments that
    holds the most answer words, then is shortest, then holds the most question words; the
    chunk's span when no segment holds an answer word."""
    answer_terms, question_terms = set(tokenize(answer)), set(tokenize(question))
    terms = [set(tokenize(s.text)) for s in segments]
    best, best_score = None, None
    for i, first in enumerate(segments):
        covered: set[str] = set()
        for j in range(i, len(segments)):
            if j > i and segments[j].end - first.start > WINDOW_SECONDS:
                break
            covered |= terms[j]
            score = (len(covered & answer_terms), first.start - segments[j].end, len(covered & question_terms))
            if score[0] and (best_score is None or score > best_score):
                best, best_score = (first.start, segments[j].end), score
    if best is None:
        return chunk.start, chunk.end
    return max(best[0], chunk.start), min(best[1], chunk.end)


def similar(terms: set[str], other: set[str]) -> bool:
    """Near-identical content-word sets: Jaccard similarity >= DEDUPE_JACCARD."""
    return len(terms & other) >= DEDUPE_JACCARD * len(terms | other) > 0


def dedupe(items: list[QAItem]) -> None:
    """Mark as "duplicate" each kept item whose question is near-identical to an earlier kept one."""
    seen: list[set[str]] = []
    for item in items:
        if item.dropped is None:
            assert item.question is not None, "a kept item has its question"
            terms = set(tokenize(item.question))
            if any(similar(terms, other) for other in seen):
                item.dropped = "duplicate"
            else:
                seen.append(terms)


# -- choosing chunks and asking ----------------------------------------------------------------
def pick_chunks(chunks: list[Segment], per_video: int, rng: random.Random) -> list[int]:
    """The positions of up to `per_video` chunks with enough text: one drawn from each of
    `per_video` equal stretches of the video, in time order."""
    eligible = [n for n, c in enumerate(chunks) if len(tokenize(c.text)) >= MIN_CHUNK_TERMS]
    n = min(per_video, len(eligible))
    return [eligible[rng.randrange(len(eligible) * i // n, len(eligible) * (i + 1) // n)] for i in range(n)]


def inside(elements: list, chunk: Segment, time) -> list:
    """The elements whose `time(element)` lies in the chunk's [start, end)."""
    return [x for x in elements if chunk.start <= time(x) < chunk.end]


def chunk_frames(frames: list[Frame], chunk: Segment) -> list[bytes]:
    """Up to MAX_FRAMES JPEGs spread evenly over the chunk."""
    shown = inside(frames, chunk, lambda f: f.t)
    step = max(1, -(-len(shown) // MAX_FRAMES))
    return [f.jpeg for f in shown[::step]]


def qa_prompt(transcript: str) -> str:
    words = transcript.split()
    text = " ".join(words[:PROMPT_WORDS]) + (" ..." if len(words) > PROMPT_WORDS else "")
    return QA_PROMPT.format(example_question=EXAMPLE_QUESTION, transcript=text) + "Q:"


def require_completion(generator) -> None:
    if not isinstance(generator, Completes):
        raise ConfigError(
            f"generator {getattr(generator, 'name', generator)!r} cannot write questions (it has no raw completion)",
            "use --generator llamacpp (local GGUF) or openai",
        )


def ask(generator, item: QAItem, images: list[bytes]) -> None:
    """Fill the item's reply (images go along when the generator takes them)."""
    prompt = qa_prompt(item.chunk.text)
    try:
        if images and isinstance(generator, CompletesWithImages):
            item.reply = generator.complete_with_images(prompt, images, MAX_TOKENS)
        else:
            item.reply = generator.complete(prompt, MAX_TOKENS)
    except GenerationError as exc:
        log.warning("make-qa: no reply for %s: %s", item.id, exc)
        item.dropped = "generator error"


def judge(item: QAItem, segments: list[Segment], topic: str) -> None:
    """Parse the reply, check it, and place the evidence window (or say why it is dropped)."""
    pair = parse_reply(item.reply)
    if pair is None:
        item.dropped = "unparseable"
        return
    item.question, item.answer = pair
    item.dropped = check_item(item.question, item.answer, item.chunk.text, topic)
    if item.dropped is None:
        item.start, item.end = evidence_window(segments, item.chunk, item.answer, item.question)


def video_items(index, video_id: str, topic: str, generator, per_video: int, seed: int) -> Iterator[QAItem]:
    """The asked and judged items of one video."""
    chunks = index.segments(video_id, kind="chunk")
    picked = pick_chunks(chunks, per_video, random.Random(f"{seed}:{video_id}"))
    wants_images = isinstance(generator, CompletesWithImages)
    frames = index.frames(video_id) if picked and wants_images else []
    segments = index.segments(video_id) if picked else []
    for n in picked:
        chunk = chunks[n]
        item = QAItem(f"{video_id}#{n}", video_id, chunk)
        ask(generator, item, chunk_frames(frames, chunk))
        if item.dropped is None:
            judge(item, inside(segments, chunk, lambda s: (s.start + s.end) / 2), topic)
        yield item


def generate_items(
    index, generator, per_video: int = 3, seed: int = 0, show_progress: bool = False
) -> Iterator[QAItem]:
    """Each asked chunk's item, video by video (the long work; not yet de-duplicated)."""
    require_completion(generator)
    videos = index.videos(["video_id", "path"]).to_pylist()
    for row in tqdm(sorted(videos, key=lambda r: r["video_id"]), disable=not show_progress, desc="make-qa"):
        yield from video_items(index, row["video_id"], Path(row["path"]).stem, generator, per_video, seed)


def make_qa(index, generator, per_video: int = 3, seed: int = 0, show_progress: bool = False) -> QASet:
    """Ask, check and de-duplicate: every item, kept or with the reason it was dropped."""
    if per_video < 1:
        raise ConfigError(f"--per-video must be >= 1, got {per_video}")
    items = list(generate_items(index, generator, per_video, seed, show_progress))
    dedupe(items)
    return QASet(items, len(index.video_ids()))


def write_jsonl(rows: list[dict], out: str) -> None:
    """One JSON object a line into file `out` (its folder made), or to stdout for "-"."""
    lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    if out == "-":
        sys.stdout.write(lines)
        return
    path = Path(out).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(lines, encoding="utf-8")
