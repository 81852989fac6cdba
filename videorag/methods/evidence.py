"""What the generator reads: a method's evidence for a question (`Method.evidence`, optional).
The default, `excerpts`, gives each of the method's best videos its moment with neighbouring
transcript lines, what the screen shows meanwhile and, for generators that read images, frames;
rag-adapter gives its selected frames and lines, CARVE its best chunks each in its winning view.
`ask`, the service and `videorag eval` gather evidence through `gather` alone."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..config import Config
from ..retrieve.base import Candidate, GathersEvidence, Method, Query
from ..snapshot.corpus import Corpus
from ..types import Evidence, Frame, Hit, Segment

if TYPE_CHECKING:
    from ..index.frames import FrameStore
    from ..retrieve.searcher import Searcher


@dataclass
class FramePicker:
    """Frames of a video for a generator that reads images: k-means++ candidates over its frame
    vectors, the learned query-aware choice when trained (`net`), an even spread of the sampled
    frames without frame vectors. Images come from the frame store."""

    store: FrameStore
    searcher: Searcher  # its corpus's frame vectors; its visual embedder for `net`
    per_video: int
    candidates: int
    net: object = None

    def pick(self, video_id: str, question: str) -> list[Frame]:
        corpus = self.searcher.corpus
        if corpus.frames is None:
            return uniform(self.store.frames(video_id), self.per_video)
        from ..visual.represent import generation_frames

        times, vectors = corpus.frames.of(corpus.row[video_id])
        query = self.searcher.visual.embed_texts([question])[0] if self.net is not None else None
        chosen = generation_frames(np.asarray(vectors), query, self.per_video, self.candidates, self.net)
        return self.store.frames_at(video_id, [float(times[i]) for i in chosen])


@dataclass
class EvidenceRequest:
    """One question's evidence gathering: the question, the searcher, the settings, the method,
    the frame picker (None: the generator reads no images) and where stage times go."""

    question: str
    searcher: Searcher
    config: Config
    method: Method
    frames: FramePicker | None = None
    timings: dict | None = None

    @property
    def judged(self) -> list[Candidate]:
        """The steps the judge read for the question, each scored by its P(yes) (`Ranking.judged`
        of the request's method; empty when no judge read any)."""
        ranked = self.context.ranked(self.method)
        return ranked.judged if ranked is not None else []

    @cached_property
    def context(self):
        """The question's query context, shared by the search and the method's own evidence (its
        embeddings and scores computed once)."""
        return self.searcher.context(Query(self.question), self.config.search)

    def hits(self) -> list[Hit]:
        """The method's best videos for the question (`GenerateConfig.videos` of them)."""
        cfg = self.config
        return self.searcher.search(
            self.question, self.method, cfg.search, cfg.generate.videos, False, self.timings, self.context
        )


def gather(method, request: EvidenceRequest) -> list[Evidence]:
    """The method's evidence (`method.evidence(request)`), the default excerpts without one."""
    return method.evidence(request) if isinstance(method, GathersEvidence) else excerpts(request)


def excerpts(request: EvidenceRequest) -> list[Evidence]:
    """Each hit's moment with neighbouring lines up to `GenerateConfig.context_words`, the
    screen's text meanwhile, and frames of its video."""
    return [excerpt_evidence(request, hit) for hit in request.hits()]


def excerpt_evidence(request: EvidenceRequest, hit: Hit) -> Evidence:
    """The excerpt around the hit's best judged step (the step that answers, not the context
    cited before it), else around the hit's middle."""
    corpus = request.searcher.corpus
    video = corpus.row[hit.video_id]
    inside = judged_steps(request, video, [Segment(hit.start, hit.end, "")])
    centre = inside[0].start if inside else (hit.start + hit.end) / 2
    lines = excerpt(segments_of(corpus, video), centre, request.config.generate.context_words)
    frames = request.frames.pick(hit.video_id, request.question) if request.frames is not None else []
    return Evidence(hit, lines, frames, screen=screen(corpus, video, lines), steps=judged_steps(request, video, lines))


def step_evidence(request: EvidenceRequest, steps: list) -> list[Evidence]:
    """Each judged step (a `Candidate`: its span, sentence and P(yes)) as evidence: the step with
    the transcript lines around it (those it overlaps and one on either side), the screen's text
    meanwhile and, for generators that read images, frames. A step inside an earlier one's lines
    joins it."""
    corpus = request.searcher.corpus
    out: list[Evidence] = []
    for step in steps:
        video_id = corpus.video_ids[step.video]
        if any(ev.hit.video_id == video_id and ev.segments[0].start <= step.start < ev.segments[-1].end for ev in out):
            continue
        segments = segments_of(corpus, step.video)
        inside = [i for i, s in enumerate(segments) if s.start < step.end and s.end > step.start]
        if not inside:
            continue
        lines = segments[max(inside[0] - 1, 0) : inside[-1] + 2]
        frames = request.frames.pick(video_id, request.question) if request.frames is not None else []
        hit = Hit(video_id, corpus.paths[step.video], step.start, step.end, step.score, step.text)
        out.append(
            Evidence(
                hit,
                lines,
                frames,
                screen=screen(corpus, step.video, lines),
                steps=judged_steps(request, step.video, lines),
            )
        )
    return out


def judged_steps(request: EvidenceRequest, video: int, lines: list[Segment]) -> list:
    """The steps the judge read inside the excerpt, best first (P(yes) as their score)."""
    if not lines or not (judged := request.judged):
        return []
    inside = [c for c in judged if c.video == video and c.start < lines[-1].end and c.end > lines[0].start]
    return sorted(inside, key=lambda c: -c.score)


def segments_of(corpus: Corpus, video: int, rows=None) -> list[Segment]:
    """A video's transcript segments (or the segment rows `rows`), in time order."""
    level = corpus.segments
    lo, hi = level.span(video)
    rows = range(lo, hi) if rows is None else rows
    return [Segment(float(level.starts[r]), float(level.ends[r]), level.texts[r]) for r in rows]


def screen(corpus: Corpus, video: int, lines: list[Segment]) -> str:
    """The distinct on-screen texts (OCR captions) shown while `lines` are said ("" without)."""
    captions = corpus.captions
    if not lines or captions is None:
        return ""
    from ..caption.base import seen

    lo, hi = captions.span(video)
    shown = [seen(captions.texts[j]) for j in range(lo, hi) if lines[0].start <= captions.starts[j] <= lines[-1].end]
    return " / ".join(dict.fromkeys(t for t in shown if t))


def excerpt(segments: list[Segment], at: float, words: int) -> list[Segment]:
    """Consecutive segments around the one holding time `at` (else the nearest), about `words`
    words in all."""
    if not segments:
        return []
    centre = min(
        range(len(segments)), key=lambda i: (not segments[i].start <= at < segments[i].end, abs(segments[i].start - at))
    )
    lo = hi = centre
    count = len(segments[centre].text.split())
    while count < words and (lo > 0 or hi < len(segments) - 1):
        for side in (hi + 1, lo - 1):
            if 0 <= side < len(segments) and count < words and not lo <= side <= hi:
                count += len(segments[side].text.split())
                lo, hi = min(lo, side), max(hi, side)
    return segments[lo : hi + 1]


def uniform(items: list, k: int) -> list:
    """k items evenly spread over the list (all of them when there are at most k)."""
    if len(items) <= k:
        return list(items)
    return [items[int((i + 0.5) * len(items) / k)] for i in range(k)]
