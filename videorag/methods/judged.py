"""Judged search: any method's ranking, its moments chosen by a judge that reads them.

1. The `judge.videos` best videos of the method's ranking are cut into steps (sentences,
   `videorag.retrieve.steps`): one step each, so a heading is a candidate of its own, not glued to
   the step after it.
2. A step's retrieval score mixes its video's score (min-max over those videos) with its own
   (`moments.video_weight`, as `--moments` mixes them): the best within-video relevance of the
   segments it covers (`moments.segment_relevance`) beside the best score of the method's
   moments it overlaps; the best 30 are then embedded (a step that is a whole segment reads the
   index's vector of it instead) and a third of their own score becomes their sentence's
   similarity to the query (with the topic discount).
3. The `judge.candidates` best steps are read by the judge (the `llm` reranker: the probability
   that the passage answers the question), each with `judge.read_context` sentences on either
   side as marked context and, when the index has captions, with what the screen shows during the
   step and not just before or after it (a slide that changes with the step, not a title card).
4. A judged step scores `weight` · P(yes) + (1 − weight) · its retrieval score (min-max over the
   judged): the judge overrides retrieval where it is sure, retrieval decides where it is not (a
   step the judge could not read counts as the mean judgement); a judged video scores
   `video_weight` · its best judged step + the rest its retrieval
   score, and ranks above every video outside the pool (which keep their order).
5. A judged video's moments: its judged steps, best first, each cited with `judge.cite_context`
   sentences on either side (at most `moments.max_seconds`), then the method's moments that
   overlap none.
Stage time lands in `qc.timings["judge"]`; the judged steps (their own span and sentence, scored by
P(yes)) in `Ranking.judged`, for answerability and the answer's sentences.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..config import SearchConfig
from ..embed.e5 import of as e5_of
from ..retrieve.base import Candidate, GathersEvidence, Method, Ranking
from ..retrieve.fusion import minmax
from ..retrieve.moments import segment_relevance
from ..retrieve.searcher import top
from ..retrieve.steps import Step, covering, steps

SCREEN_SECONDS = 10.0  # on-screen text also shown this close to a step is not the step's own
EMBEDDED = 30  # best steps embedded (~130 ms on 2 cores if none is a whole segment) before the judge's are chosen
SAME = 1e-5  # a stored vector within this cosine of the embedder's own is the same text embedded the same way


class Judged:
    """`inner` with its moments chosen by the judge (see the module's docstring)."""

    def __init__(self, inner: Method, config: SearchConfig):
        self.inner, self.config = inner, config
        self.name = inner.name

    def __getattr__(self, name: str):
        """The inner method's own hooks (carve's `interleaved`)."""
        return getattr(self.inner, name)

    def evidence(self, request) -> list:
        """What the generator reads (`Method.evidence`): the inner method's own evidence when it
        has one (rag-adapter, carve); else the judge's best steps (`GenerateConfig.steps` of
        them, P(yes) best first, across the judged videos), each with the lines around it; the
        excerpts around the best videos' moments when it read none (or `steps` is 0)."""
        if isinstance(self.inner, GathersEvidence):
            return self.inner.evidence(request)
        from .evidence import excerpt_evidence, step_evidence

        hits = request.hits()  # judges the steps of the query context
        best = sorted(request.judged, key=lambda c: -c.score)[: request.config.generate.steps]
        return step_evidence(request, best) or [excerpt_evidence(request, hit) for hit in hits]

    def rank(self, qc) -> Ranking:
        ranking = self.inner.rank(qc)
        cfg, share = self.config.judge, self.config.moments.video_weight
        pool = [int(v) for v in top(ranking.videos, cfg.videos)]
        found = [s for v in pool for s in video_steps(qc, ranking, v, self.config)[: cfg.per_video]]
        found = with_vectors(qc, sorted(found, key=lambda s: -s.score(share))[:EMBEDDED])
        chosen = _chosen(found, cfg.candidates, share, cfg.each_video)
        if len(chosen) < 2:
            return ranking
        retrieval = minmax(np.array([s.score(share) for s in chosen]))
        judging, start = judge(cfg.reranker, qc.searcher.resources), time.perf_counter()
        judging.warm_up()  # its model loads with the first judged query, not before: refusals never wait for it
        qc.timings["judge_load"], start = time.perf_counter() - start, time.perf_counter()
        p = np.asarray(judging.score(qc, [s.passage for s in chosen]), np.float64)
        qc.timings["judge"] = time.perf_counter() - start
        if np.isnan(p).all():
            return ranking
        read = [_replace(s.passage, float(v), s.text) for s, v in zip(chosen, p, strict=True) if not np.isnan(v)]
        p[np.isnan(p)] = np.nanmean(p)  # what the judge could not read counts as an average judgement
        final = cfg.weight * p + (1 - cfg.weight) * retrieval
        judged: dict[int, list[Candidate]] = {}
        for s, score in zip(chosen, final, strict=True):
            judged.setdefault(s.cited.video, []).append(_replace(s.cited, float(score)))
        return Ranking(
            _video_scores(ranking.videos, pool, judged, cfg.video_weight),
            lambda v, best_only=False: _moments(ranking.moments(v, best_only), judged.get(v)),
            judged=read,
        )


def _chosen(found: list[StepCandidate], k: int, share: float, each_video: bool) -> list[StepCandidate]:
    """The `k` best steps by retrieval score; with `each_video`, each video's best step first."""
    ranked = sorted(found, key=lambda s: -s.score(share))
    if not each_video:
        return ranked[:k]
    firsts = list({s.cited.video: s for s in reversed(ranked)}.values())  # each video's best step
    firsts = sorted(firsts, key=lambda s: -s.score(share))[:k]
    rest = [s for s in ranked if all(s is not f for f in firsts)]
    return sorted(firsts + rest[: k - len(firsts)], key=lambda s: -s.score(share))


@dataclass
class StepCandidate:
    """A step as the judge's candidate: what a hit cites (the step and its context sentences),
    what the judge reads, the sentence itself, its relevance inside its video and its video's
    retrieval score (both in [0, 1])."""

    cited: Candidate
    passage: Candidate
    text: str
    own: float
    video: float

    def score(self, share: float) -> float:
        """Its retrieval score: `share` of its video's, the rest its own (as `--moments` mixes them)."""
        return share * self.video + (1 - share) * self.own


def video_steps(qc, ranking: Ranking, video: int, config: SearchConfig) -> list[StepCandidate]:
    """Each step of a video as a candidate, best first by its relevance inside the video: the
    best segment relevance it covers beside the best score of the method's moments it overlaps."""
    level = qc.corpus.segments
    lo, hi = level.span(video)
    if lo == hi:
        return []
    found = steps(level.starts[lo:hi], level.ends[lo:hi], level.texts[lo:hi])
    a, b = np.array([s.start for s in found]), np.array([s.end for s in found])
    own = covering(a, b, level.starts[lo:hi], level.ends[lo:hi], segment_relevance(qc, video, lo, hi, config.moments))
    moments = ranking.moments(video)
    if moments:
        said = covering(a, b, *(np.array(x) for x in zip(*((m.start, m.end, m.score) for m in moments), strict=True)))
        own = 0.5 * own + 0.5 * minmax(said)
    video_score = _pool_score(ranking.videos, video, config.judge.videos)
    cfg, seen = config.judge, on_screen(qc, video)
    out = []
    for i in np.argsort(-own, kind="stable"):
        step = found[i]
        cited = _within(
            found[max(i - cfg.cite_context, 0) : i + cfg.cite_context + 1], step, config.moments.max_seconds
        )
        out.append(
            StepCandidate(
                Candidate(video, "step", cited[0].start, cited[-1].end, 0.0, "judged", " ".join(s.text for s in cited)),
                Candidate(
                    video,
                    "step",
                    step.start,
                    step.end,
                    0.0,
                    "text",
                    _passage(found, i, cfg.read_context, seen(step.start, step.end)),
                ),
                step.text,
                float(own[i]),
                video_score,
            )
        )
    return out


def with_vectors(qc, found: list[StepCandidate]) -> list[StepCandidate]:
    """The steps re-scored by their own embedding: a third of a step's relevance becomes its
    sentence's similarity to the query, less what query and sentence share with the video's
    topic (the topic discount segments get; min-max over these steps). Segments are cut where the
    recogniser paused, steps where the speaker ended a sentence: a step's own vector finds the
    answer the covering segment's vector blurs with its neighbours."""
    if len(found) < 2:
        return found
    vectors, queries = _own_vectors(qc, found)
    topics = np.asarray([qc.corpus.videos.vectors[s.cited.video] for s in found])
    along = lambda a, b: np.einsum("ij,ij->i", a, b)  # noqa: E731
    if queries.ndim == 1:  # one query vector for every step (no video in another language)
        dense = vectors @ queries - (topics @ queries) * along(vectors, topics)
    else:
        dense = along(vectors, queries) - along(topics, queries) * along(vectors, topics)
    for s, d in zip(found, minmax(dense), strict=True):
        s.own = (2 * s.own + float(d)) / 3
    return found


def _within(near: list[Step], step: Step, seconds: float) -> list[Step]:
    """The context steps around `step` that fit with it in `seconds`, nearest first."""
    kept = [step]
    for s in sorted(near, key=lambda s: abs(s.start - step.start)):
        if s is not step and max(s.end, kept[-1].end, step.end) - min(s.start, kept[0].start) <= seconds:
            kept.append(s)
            kept.sort(key=lambda s: s.start)
    return kept


def _passage(found: list[Step], i: int, context: int, screen: str) -> str:
    """What the judge reads: the step, the context around it marked as such, the screen's text."""
    before = " ".join(s.text for s in found[max(i - context, 0) : i])
    after = " ".join(s.text for s in found[i + 1 : i + 1 + context])
    parts = [
        f"(before: {before})" if before else "",
        found[i].text,
        f"(after: {after})" if after else "",
        f"[on screen: {screen}]" if screen else "",
    ]
    return " ".join(p for p in parts if p)


def on_screen(qc, video: int, around: float = SCREEN_SECONDS):
    """(start, end) -> what the screen shows in that span and not in the `around` seconds on
    either side ("" when the index has no captions): a slide that changes with the step says
    something about it; a title card or a chapter's heading that stays up across many steps names
    their topic, which the judge would take for an answer."""
    captions = qc.corpus.captions
    if captions is None:
        return lambda a, b: ""
    from ..caption.base import seen

    lo, hi = captions.span(video)
    times, shown = captions.starts[lo:hi], [seen(t) for t in captions.texts[lo:hi]]

    def text(a: float, b: float) -> str:
        inside = {shown[j] for j in np.flatnonzero((times >= a) & (times <= b))}
        beside = {
            shown[j]
            for j in np.flatnonzero((times >= a - around) & (times <= b + around) & ((times < a) | (times > b)))
        }
        return " / ".join(sorted(t for t in inside - beside if t))

    return text


def _pool_score(videos: np.ndarray, video: int, pool: int) -> float:
    best = videos[top(videos, pool)].astype(np.float64)
    spread = float(np.ptp(best)) if len(best) else 0.0
    return (float(videos[video]) - float(best.min())) / spread if spread > 1e-12 else 1.0


def _video_scores(videos: np.ndarray, pool: list[int], judged: dict, share: float) -> np.ndarray:
    """Pool videos above the rest (1 + mix of retrieval and best judged step); the rest min-max."""
    out = minmax(videos.astype(np.float64))
    for v in pool:
        best = max((c.score for c in judged.get(v, [])), default=0.0)
        out[v] = 1.0 + (1 - share) * _pool_score(videos, v, len(pool)) + share * best
    return out


def _moments(found: list[Candidate], judged: list[Candidate] | None) -> list[Candidate]:
    """A judged video's moments: its judged steps best first, scaled so the best is 1 (a ranking's
    moment scores are relative to the video's best), then the method's others below them."""
    if not judged:
        return found
    judged = sorted(judged, key=lambda c: -c.score)
    top_score = max(judged[0].score, 1e-9)
    judged = [_replace(c, c.score / top_score) for c in judged]
    floor = judged[-1].score
    rest = [m for m in found if not any(m.start < j.end and j.start < m.end for j in judged)]
    return judged + [_replace(m, floor * m.score / (1 + m.score)) for m in rest]


def _replace(c: Candidate, score: float, text: str | None = None) -> Candidate:
    return Candidate(c.video, c.unit, c.start, c.end, score, c.source, c.text if text is None else text, c.frames)


def judge(config, resources):
    """The judge: the scoring reranker `config` names (loaded once per owner of `resources`)."""
    from ..rerank import shared_reranker

    return shared_reranker(config, resources)


def _own_vectors(qc, found: list) -> tuple[np.ndarray, np.ndarray]:
    """(each step's vector, the query's vector in its space): the index's embedder's, or for a
    video in another language the multilingual one's (`embed.e5`). A step that is a whole segment
    of its video takes the index's own vector of that segment when the index embedded segments
    alone with this embedder (checked on the first: embedded too, compared), so most of a
    clean transcript's steps need no embedding at query time."""
    other = np.asarray([qc.corpus.is_multilingual(s.cited.video) for s in found], bool)
    vectors = np.zeros((len(found), len(qc.vector())), np.float32)
    rows = _whole_segments(qc.corpus.segments, found)
    whole = np.flatnonzero(~other & (rows >= 0))
    embedded = np.setdiff1d(np.flatnonzero(~other), whole[1:])  # the first whole segment's step too: the check
    embed = qc.searcher.embedder.embed
    if len(embedded):
        vectors[embedded] = embed([found[i].text for i in embedded])
    if len(whole):
        stored = np.asarray(qc.corpus.segments.vectors[rows[whole]], np.float32)
        if float(stored[0] @ vectors[whole[0]]) >= 1 - SAME:
            vectors[whole[1:]] = stored[1:]
        elif len(whole) > 1:
            vectors[whole[1:]] = embed([found[i].text for i in whole[1:]])
    if not other.any():
        return vectors, qc.vector()
    queries = np.tile(qc.vector(), (len(found), 1))
    vectors[other] = e5_of(qc.searcher.resources).embed([s.text for s, o in zip(found, other, strict=True) if o])
    queries[other] = qc.multilingual_vector()
    return vectors, queries


def _whole_segments(level, found: list) -> np.ndarray:
    """Each step's row in `level` where one segment of its video says exactly its sentence; -1
    where none does (a sentence cut from a longer segment, or glued from several)."""
    said: dict[int, dict[str, int]] = {}
    for video in {s.cited.video for s in found}:
        lo, hi = level.span(video)
        said[video] = {" ".join(level.texts[r].split()): r for r in range(lo, hi)}
    return np.array([said[s.cited.video].get(s.text, -1) for s in found], np.int64)
