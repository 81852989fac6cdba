"""How a question's answerability is read: the one path `VideoRAG.prepare` takes and the fit's
collection (`benchmarks answerability`) takes too, so the signals the weights were fitted on are
the signals `ask` reads.

1. plain retrieval's top moment and its excerpt (what is said there and what the screen shows)
   give the cheap signals: `Answerability.screen`, which may refuse the question as off-topic;
2. otherwise the request's method gathers the evidence (judged search records its steps' scores
   in the query context), and `Answerability.decide` adds the judge's signal and the generator's
   own P(the evidence holds the answer).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..methods.evidence import EvidenceRequest, excerpt, gather, screen, segments_of
from ..retrieve.base import Method
from ..types import Evidence, Hit
from . import Answerability, Verdict


@dataclass(frozen=True)
class Assessed:
    verdict: Verdict
    evidence: list[Evidence]  # empty when refused as off-topic (nothing was gathered)
    top: Hit | None  # plain retrieval's top hit (None: nothing retrieved)


def top_moment(request: EvidenceRequest, plain: Method) -> tuple[Hit | None, str]:
    """Plain retrieval's (`plain`) top hit for the request's question and its excerpt's text: the
    lines around it and what the screen shows meanwhile ("" when nothing was retrieved)."""
    cfg = request.config
    hits = request.searcher.search(request.question, plain, cfg.search, 1, False, None, request.context)
    if not hits:
        return None, ""
    corpus = request.searcher.corpus
    video = corpus.row[hits[0].video_id]
    lines = excerpt(segments_of(corpus, video), hits[0].start, cfg.generate.context_words)
    return hits[0], " ".join([*(s.text for s in lines), screen(corpus, video, lines)])


def assess(
    stage: Answerability,
    request: EvidenceRequest,
    plain: Method,
    covered: Callable[[list[Evidence]], float | None] | None = None,
) -> Assessed:
    """The question's verdict and evidence: screened on `plain`'s top moment, then (unless
    off-topic) decided after the request's method gathered its evidence, with `covered(evidence)`,
    the generator's own P(the evidence holds the answer), when the generator has one."""
    top, text = top_moment(request, plain)
    screened = stage.screen(request.context, top, text)
    if screened.stage == "off-topic":
        return Assessed(screened, [], top)
    evidence = gather(request.method, request)
    own = None if covered is None else (lambda: covered(evidence))
    return Assessed(stage.decide(screened, request.judged, own), evidence, top)
