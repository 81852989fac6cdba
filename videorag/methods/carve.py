"""`carve`: CARVE's chunk-adaptive retrieval over {text, visual} × {frame, clip}.

1. **Pooling**: one retriever per view (`videorag.snapshot.views`), run concurrently; each returns
   its top `pool` chunks, tagged with the view that found them (a chunk can come several times).
2. **Chunk-adaptive reranking**: the `rerank_depth` best pooled candidates are rescored by the
   reranker *only under the view that retrieved each* — a text view by its best passage of
   ≤ `judge_words` words (inside the best transcript moment of the chunk, its best segment and
   neighbours; the best keyframe's caption: a judge reads a few sentences, not two minutes),
   a visual view by its keyframes. Each chunk keeps its best-scoring
   view; chunks are ranked by that score. Scores meet on one scale: a retriever's score is
   min-max normalised over its view's pool; a judged candidate's score is `rerank_weight` (0.5)
   of the reranker's, min-max normalised over everything it judged, plus the rest of its own
   (1 = the reranker alone, as in the paper: a weak judge such as the offline bi-encoder then
   undoes good retrieval — measured in `results/carve/`); a reranker whose scores are calibrated
   probabilities (the `llm` judge's P(yes)) is taken as it is, not min-max normalised, so a judge
   unsure of every candidate leaves retrieval's order; a candidate it did not judge (frames,
   for a text-only reranker such as the offline default; or below the rerank depth) keeps its
   own score times `unjudged_weight` (0.5): without a judgement, a view's top chunk should not
   tie with the judged best.
3. Ablations (`CarveConfig`): `views` (a single view), `rerank=False` (pooling without
   reranking), `choose=False` (a chunk's views averaged instead of its best one kept).

A video's score is its best chunk's; its moments are its chosen chunks, best first, each cited
as the ≤ `moments.max_seconds` moment inside the chunk (the best transcript moment there, or the
segment around the best keyframe). `interleaved` gives the generator the top chunks, each in its
winning view. Stage timings land in `qc.timings` (pool, rerank).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np

from ..config import TEXT_VIEWS, RerankConfig, SearchConfig
from ..errors import IndexError_
from ..rerank import moment_reranker_for, shared_reranker
from ..retrieve.base import Candidate, Ranking
from ..retrieve.moments import text_moments
from ..types import Segment


class Carve:
    name = "carve"

    def __init__(self, config: SearchConfig):
        self.config = config

    def rank(self, qc) -> Ranking:
        chosen = self.chunks(qc)
        best = np.full(len(qc.corpus.video_ids), -1.0)
        by_video: dict[int, list[Candidate]] = {}
        for c in chosen:
            by_video.setdefault(c.video, []).append(c)
            best[c.video] = max(best[c.video], c.score)
        return Ranking(best, lambda v, best_only=False: [moment(qc, c) for c in by_video.get(v, [])])

    def chunks(self, qc) -> list[Candidate]:
        """The chosen chunks, best first: one candidate per chunk, in its winning view (once per
        query and method: `ask` reads them after its search)."""
        return qc.memo(("carve-chunks", self), lambda: self._chunks(qc))

    def _chunks(self, qc) -> list[Candidate]:
        cfg = self.config.carve
        views = qc.corpus.chunk_views
        names = [v for v in cfg.views if v in views.views]
        if not names:
            raise IndexError_(
                f"carve: the index has none of the views {', '.join(cfg.views)} "
                f"(it has: {', '.join(views.views) or 'none'})",
                "index transcripts; add --captions ocr for text-frame and --visual BACKEND "
                "--visual-model FOLDER for the visual views",
            )
        start = time.perf_counter()
        pooled = pool(qc, views, names, cfg.pool)
        qc.timings["pool"] = time.perf_counter() - start
        start = time.perf_counter()
        scores = rescore(qc, pooled, cfg, self.reranker())
        qc.timings["rerank"] = time.perf_counter() - start
        return choose(pooled, scores, cfg.choose)

    def reranker(self) -> RerankConfig:
        """The rerank stage's reranker: the configured one; `auto` is the judge (`judge.reranker`)
        where it can run here, else `e5`."""
        chosen = self.config.carve.reranker
        if chosen.backend != "auto":
            return chosen
        from ..models import judge_available as available

        judge = self.config.judge.reranker
        return judge if available(judge) else replace(chosen, backend="e5")

    def interleaved(self, qc, k: int) -> list[tuple[Candidate, Candidate]]:
        """The `k` best chunks across the collection, each in its winning view, with the moment
        inside it that the answer cites (for generation)."""
        return [(c, moment(qc, c)) for c in self.chunks(qc)[:k]]

    def evidence(self, request) -> list:
        """The best chunks across the collection, in rank order, each in its winning view — its
        keyframes for a visual view (frames for generators that read images), its text else;
        each cites the moment inside the chunk."""
        from ..types import Evidence
        from .evidence import segments_of

        qc, searcher, out = request.context, request.searcher, []
        for chunk, found in self.interleaved(qc, self.config.carve.generate_chunks):
            hit = searcher.hit(found, found.score)
            segments = [s for s in segments_of(searcher.corpus, chunk.video) if chunk.start <= s.start < chunk.end]
            if chunk.source == "text-frame":
                segments = [Segment(chunk.start, chunk.end, chunk.text)]
            frames = (
                [f for t in chunk.frames if (f := request.frames.store.frame_near(hit.video_id, t)) is not None]
                if chunk.source not in TEXT_VIEWS and request.frames is not None
                else []
            )
            out.append(Evidence(hit, segments, frames, view=chunk.source))
        return out


def pool(qc, views, names: list[str], k: int) -> list[Candidate]:
    """Each view's top-k chunks, retrieved concurrently (query vectors computed first)."""
    queries = {name: qc.visual_vector() if name not in TEXT_VIEWS else qc.vector() for name in names}
    found = _pool(qc).map(lambda name: views.retrieve(name, queries[name], k), names)
    return [c for group in found for c in group]


def _pool(qc) -> ThreadPoolExecutor:
    """The views' worker threads, one pool per owner (`qc.searcher.resources`), shut down with it."""
    return qc.searcher.resources.get(
        ("pool", "carve"), lambda: ThreadPoolExecutor(max_workers=4, thread_name_prefix="videorag-carve")
    )


def rescore(qc, pooled: list[Candidate], cfg, reranker: RerankConfig) -> np.ndarray:
    """Each candidate's score on one scale (see the module's docstring)."""
    own = np.zeros(len(pooled))
    for view in {c.source for c in pooled}:
        rows = [i for i, c in enumerate(pooled) if c.source == view]
        own[rows] = _scaled(np.array([pooled[i].score for i in rows]))
    if not cfg.rerank or not pooled:
        return own
    depth = np.argsort(-own, kind="stable")[: cfg.rerank_depth]
    raw = np.full(len(pooled), np.nan)
    judge = shared_reranker(reranker, qc.searcher.resources)
    raw[depth] = judge.score(qc, [passage(qc, pooled[i], cfg.judge_words) for i in depth])
    judged = ~np.isnan(raw)
    opinion = raw[judged] if judge.calibrated else _scaled(raw[judged])
    own[judged] = (1 - cfg.rerank_weight) * own[judged] + cfg.rerank_weight * opinion
    own[~judged] *= cfg.unjudged_weight
    return own


def passage(qc, candidate: Candidate, words: int) -> Candidate:
    """The candidate as the reranker reads it: a text view by its best passage of ≤ `words`
    words — inside the best transcript moment of the chunk (text-clip), the best segment and
    its neighbours; the best keyframe's caption (text-frame) — so a judge reads a few
    sentences, not two minutes (its cost grows with every token); a visual view by its frames."""
    if candidate.source not in TEXT_VIEWS:
        return candidate
    found = moment(qc, candidate)
    text = _around_best(qc, found, words) if candidate.source == "text-clip" else _first_words(found.text, words)
    return Candidate(found.video, found.unit, found.start, found.end, found.score, found.source, text, found.frames)


def _around_best(qc, found: Candidate, words: int) -> str:
    """The moment's best segment for the query, widened by its neighbours up to `words` words."""
    level = qc.corpus.segments
    lo, hi = level.span(found.video)
    rows = [j for j in range(lo, hi) if level.ends[j] > found.start and level.starts[j] < found.end]
    if not rows:
        return _first_words(found.text, words)
    dense = dict(zip(range(lo, hi), qc.dense_span(level, lo, hi), strict=True))
    first = last = max(rows, key=lambda j: dense[j])
    count = len(level.texts[first].split())
    while True:
        sides = [j for j in (first - 1, last + 1) if rows[0] <= j <= rows[-1]]
        sides = [j for j in sides if count + len(level.texts[j].split()) <= words]
        if not sides:
            break
        j = max(sides, key=lambda j: dense[j])
        count += len(level.texts[j].split())
        first, last = min(first, j), max(last, j)
    return _first_words(" ".join(level.texts[first : last + 1]), words)


def _first_words(text: str, words: int) -> str:
    return " ".join(text.split()[:words])


def choose(pooled: list[Candidate], scores: np.ndarray, best_view: bool) -> list[Candidate]:
    """One candidate per chunk, best first: its best view's score (or the mean of its views')."""
    groups: dict[tuple, list[int]] = {}
    for i, c in enumerate(pooled):
        groups.setdefault((c.video, c.start), []).append(i)
    out = []
    for rows in groups.values():
        top = max(rows, key=lambda i: scores[i])
        score = scores[top] if best_view else float(np.mean(scores[rows]))
        c = pooled[top]
        out.append(Candidate(c.video, c.unit, c.start, c.end, float(score), c.source, c.text, c.frames))
    return sorted(out, key=lambda c: -c.score)


def moment(qc, chunk: Candidate) -> Candidate:
    """The ≤ max_seconds moment inside a chosen chunk that stands for it (keeps view and frames):
    text-clip — the best transcript moment in the chunk; the other views — the segment said
    around their best frame (the best caption's, the best keyframe's)."""
    limit = qc.config.moments.max_seconds
    start, end, text = chunk.start, min(chunk.end, chunk.start + limit), chunk.text
    if chunk.source == "text-clip":
        inside = [m for m in _text_moments(qc, chunk.video) if chunk.start <= (m.start + m.end) / 2 < chunk.end]
        if inside:  # clipped to the chunk: the moment stands for this chunk only
            start, end, text = max(inside[0].start, chunk.start), min(inside[0].end, chunk.end), inside[0].text
    elif chunk.frames:
        start, end, said = _segment_at(qc, chunk.video, chunk.frames[0])
        text = chunk.text.split("\n", 1)[0] if chunk.source == "text-frame" else said or text
    return Candidate(
        chunk.video,
        "moment",
        float(start),
        float(min(end, start + limit)),
        chunk.score,
        chunk.source,
        text,
        chunk.frames,
    )


def _text_moments(qc, video: int) -> list[Candidate]:
    return qc.memo(
        ("carve-moments", video),
        lambda: text_moments(qc, video, reranker=moment_reranker_for(qc.config, qc.searcher.resources)),
    )


def _segment_at(qc, video: int, t: float) -> tuple[float, float, str]:
    level = qc.corpus.segments
    lo, hi = level.span(video)
    for j in range(lo, hi):
        if level.starts[j] <= t <= level.ends[j]:
            return float(level.starts[j]), float(level.ends[j]), level.texts[j]
    return t, t + 10.0, ""


def _scaled(x: np.ndarray) -> np.ndarray:
    """Min-max to [0, 1]; a single or constant list maps to 1."""
    if x.size and np.ptp(x) < 1e-12:
        return np.ones_like(x, np.float64)
    low = x.min() if x.size else 0.0
    return (x - low) / (np.ptp(x) if x.size else 1.0)
