"""Questions about a whole video or the whole collection, answered from the chapters.

"Give me an overview of the cooking class", "summarize …", "what topics does … cover", "what is
… about" ask for a video (the one they name: by its file name, else the best match of plain
search; none, when the index holds one video); with "the videos", "the collection", "all videos"
they ask for the collection; "which videos are about …" asks which videos match. They are
answered from the chapters (`videorag.chapters`): each chapter is mapped to its title and the
sentence of it that says most of what the chapter is about, and the answer puts these together in
time order, one claim a chapter citing the chapter's span (a video of one chapter, a short clip,
is gone through by up to `MAX_STEPS` of its sentences instead). A named video that is not in the index
is abstained on. English phrasings only (other languages ask as any question).

The map is extractive: an LLM summary of each chapter would cost the local 1.5B about a second a
chapter on two cores before the first word, and videos run to hours.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..analysis import STOP_WORDS, stem, tokenize, words
from ..languages import IN_ENGLISH
from ..retrieve.steps import Step, steps
from ..types import Answer, Chapter, Citation, Claim, Hit, Segment, clock
from ..verify.claims import marked

NAME = "overview"  # the answer's `generator`
_CUE = re.compile(
    r"\b(overview|summar(y|ies|ise|ize)|outline|recap|gist|rundown|synopsis|tl;?dr|main points|key points"
    r"|table of contents|chapters)\b"
    r"|\bwhat (topics|subjects|sections) (does|do|did|are|is|were)\b"
    r"|\bwhat (is|are|was|were) .{1,80}? about\W*$"
    r"|\bwhat (does|do|did) .{1,80}? (cover|discuss|talk about|go over|teach)\W*$",
    re.IGNORECASE,
)
_WHICH = re.compile(r"\b(which|what) videos?\b", re.IGNORECASE)
_COLLECTION = re.compile(
    r"\b(all|every|each|these|those|my|the) (of (the|my) )?videos\b|\b(the|my|this|whole) (collection|library|index)\b",
    re.IGNORECASE,
)
# words that ask for an overview rather than name what it is of
_ASKING = frozenset(
    tokenize(
        "give overview overviews summary summaries summarize summarise outline recap gist rundown synopsis tldr "
        "main key points table contents chapters chapter topics topic subjects parts sections steps cover covers "
        "covered discuss discussed talk talks talked go over teach taught please show tell video videos "
        "recording clip whole entire collection library index briefly quick short which"
    )
)
MAX_VIDEOS = 12  # videos a collection overview lists
MAX_STEPS = 8  # sentences an overview of a one-chapter video goes through (spread over it)


@dataclass(frozen=True)
class Overview:
    """What an overview question asks for: `kind` video | collection | which, and the words that
    name the video (or, for which, the subject), the asking words taken out."""

    kind: str
    named: str


def overview_of(question: str) -> Overview | None:
    """The overview `question` asks for, None when it asks something else."""
    which = bool(_WHICH.search(question))
    if not which and not _CUE.search(question):
        return None
    named = " ".join(w for w in words(question) if w not in STOP_WORDS and stem(w) not in _ASKING)
    if which:
        return Overview("which", named) if named else None
    return Overview("collection" if _COLLECTION.search(question) and not named else "video", named)


@dataclass
class Sources:
    """What an overview reads, from its caller (`VideoRAG`): the indexed videos (id, path,
    duration), their chapters, their segments, and plain search."""

    videos: list[dict]
    chapters: Callable[[str], list[Chapter]]
    segments: Callable[[str], list[Segment]]
    search: Callable[[str, int], list[Hit]]


def answer(question: str, asked: Overview, sources: Sources) -> Answer:
    """The overview `asked` of `question`, from `sources` (abstained: see `abstained`)."""
    if asked.kind == "which":
        return _which(question, asked.named, sources)
    video = _named_video(asked.named, sources) if asked.named else _only(sources)
    if video is None:
        return _collection(question, sources) if not asked.named else abstained(question)
    return _video(question, video, sources)


def abstained(question: str) -> Answer:
    """An empty answer marked abstained (the caller says it in the question's language)."""
    return Answer(question, "", [], NAME, abstained=True)


def _only(sources: Sources) -> dict | None:
    return sources.videos[0] if len(sources.videos) == 1 else None


def _named_video(named: str, sources: Sources) -> dict | None:
    """The video `named` names: by the words of its file name, else plain search's first video
    unless it is weak (not about the words at all)."""
    terms = set(tokenize(named))
    by_name = max(sources.videos, key=lambda v: len(terms & set(tokenize(_stem(v["path"])))), default=None)
    if by_name is not None and 2 * len(terms & set(tokenize(_stem(by_name["path"])))) >= len(terms):
        return by_name
    hits = sources.search(named, 1)
    if not hits or hits[0].weak:
        return None
    return next((v for v in sources.videos if v["video_id"] == hits[0].video_id), None)


def _video(question: str, video: dict, sources: Sources) -> Answer:
    """One claim a chapter: its title and the sentence that best stands for it, citing it; a video
    of one chapter (a short clip) is gone through by its sentences instead."""
    chapters = sources.chapters(video["video_id"]) or [Chapter(0.0, video["duration"], "")]
    segments = sources.segments(video["video_id"])
    name = f"{Path(video['path']).name} ({clock(video['duration'])})"
    if len(chapters) == 1 and segments:
        said = sentences(segments)
        if len(said) > MAX_STEPS:
            said = [said[round(i * (len(said) - 1) / (MAX_STEPS - 1))] for i in range(MAX_STEPS)]
        cited = [Citation(video["video_id"], video["path"], s.start, s.end) for s in said]
        return _listed(question, f"{name} in {len(said)} steps:", [_sentence(s.text) for s in said], cited)
    lines = [
        (f"{chapter.title}: {key_sentence(chapter, segments)}" if chapter.title else key_sentence(chapter, segments))
        for chapter in chapters
    ]
    cited = [Citation(video["video_id"], video["path"], c.start, c.end) for c in chapters]
    return _listed(question, f"{name} in {len(chapters)} parts:", lines, cited)


def _collection(question: str, sources: Sources) -> Answer:
    """One claim a video (the first `MAX_VIDEOS` by path), citing it whole: its chapters' titles —
    of a video of one chapter (a short clip), its title and the sentence that best stands for it."""
    videos = sorted(sources.videos, key=lambda v: v["path"])[:MAX_VIDEOS]
    lines, cited = [], []
    for video in videos:
        chapters = sources.chapters(video["video_id"])
        titles = [c.title for c in chapters if c.title]
        about = "; ".join(titles) or "untitled"
        if len(chapters) == 1:
            said = _clipped(key_sentence(chapters[0], sources.segments(video["video_id"])))
            about = f"{titles[0]}: {said}" if titles and tokenize(titles[0]) != tokenize(said) else said
        lines.append(f"{Path(video['path']).name}: {about}")
        cited.append(Citation(video["video_id"], video["path"], 0.0, video["duration"]))
    more = len(sources.videos) - len(videos)
    head = f"The collection holds {len(sources.videos)} videos" + (
        f" (the first {len(videos)} by name)" if more else ""
    )
    return _listed(question, head + ":", lines, cited)


def _which(question: str, subject: str, sources: Sources) -> Answer:
    """The videos plain search finds about `subject` (none weak), each at the chapter it is in."""
    hits = [h for h in sources.search(subject, 5) if not h.weak]
    if not hits:
        return abstained(question)
    lines, cited = [], []
    for hit in hits:
        chapter = next((c for c in sources.chapters(hit.video_id) if c.start <= hit.start < c.end), None)
        about = f"{chapter.title}: " if chapter and chapter.title else ""
        lines.append(f"{Path(hit.path).name}, {about}{_sentence(hit.text)}")
        span = (chapter.start, chapter.end) if chapter else (hit.start, hit.end)
        cited.append(Citation(hit.video_id, hit.path, *span))
    head = f"{len(hits)} videos are about {subject}:" if len(hits) > 1 else f"One video is about {subject}:"
    return _listed(question, head, lines, cited)


def _listed(question: str, head: str, lines: list[str], cited: list[Citation]) -> Answer:
    """A numbered list under `head`, line i a claim citing `cited[i]`."""
    claims = [Claim(line, [i]) for i, line in enumerate(lines)]
    text = "\n".join([head, *(f"{i}. {marked(line, [i - 1])}" for i, line in enumerate(lines, 1))])
    return Answer(question, text, cited, NAME, claims=claims)


def key_sentence(chapter: Chapter, segments: list[Segment]) -> str:
    """The chapter's sentence that says most of its title's words (its first, without a title or
    a match): what the chapter is about, in its own words."""
    found = sentences([s for s in segments if chapter.start <= (s.start + s.end) / 2 < chapter.end])
    if not found:
        return "(nothing said)"
    title = set(tokenize(chapter.title))
    best = max(found, key=lambda s: (len(title & set(tokenize(s.text))), len(tokenize(s.text)) >= 4))
    return _sentence(best.text)


def sentences(segments: list[Segment]) -> list[Step]:
    """The segments' sentences (`retrieve.steps`), a translation ingest added ("(in English: …)")
    kept with the sentence it translates."""
    found: list[Step] = []
    for step in steps([s.start for s in segments], [s.end for s in segments], [s.text for s in segments]):
        if found and step.text.startswith(IN_ENGLISH):
            found[-1] = Step(found[-1].start, step.end, f"{found[-1].text} {step.text}")
        else:
            found.append(step)
    return found


def _sentence(text: str) -> str:
    """`text` as one sentence of the answer: its own end mark, and no `[n]` of its own."""
    text = re.sub(r"\[\d+\]", "", " ".join(text.split())).strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _clipped(sentence: str, most: int = 24) -> str:
    """The sentence, cut to its first `most` words (an ellipsis where cut)."""
    said = sentence.split()
    return sentence if len(said) <= most else " ".join(said[:most]).rstrip(",;:.") + "…"


def _stem(path: str) -> str:
    return Path(path).stem.replace("-", " ").replace("_", " ")
