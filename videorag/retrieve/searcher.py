"""The one retrieval code path: a named `Method` ranks a `Corpus` for a `Query`; the searcher
turns that ranking into hits — one per video (pointing at its best moment) or the top moments
across the collection. Used by `search`, `ask`, the service and `videorag eval` alike."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..config import SearchConfig
from ..embed import embed_queries
from ..embed.e5 import calibrated
from ..embed.e5 import of as e5_of
from ..errors import IndexError_
from ..resources import Resources, own
from ..snapshot.corpus import Corpus, Level
from ..types import Hit
from .base import Candidate, Method, Query, Ranking
from .fusion import minmax
from .moments import merge_overlapping


@lru_cache(maxsize=1)
def _blas_controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def single_blas_thread():
    """A context with numpy's BLAS on one thread: its spinning worker threads would otherwise
    starve the model runtimes (torch, CTranslate2) sharing the cores."""
    return _blas_controller().limit(limits=1, user_api="blas")


def top(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the `k` highest scores, best first (ties keep index order)."""
    k = min(k, len(scores))
    if k <= 0:
        return np.zeros(0, np.int64)
    best = np.sort(np.argpartition(-scores, k - 1)[:k])
    return best[np.argsort(-scores[best], kind="stable")]


def weak_marks(relevance: list[float], scores: list[float], config: SearchConfig) -> list[bool]:
    """Which hits are weak: those whose relevance (`Searcher.relevance`) falls below the floor or
    far below the best hit's (`weak_below`, `weak_gap`), and every hit scored no higher than one
    of those, so the marks follow the score a reader sees (NaN relevance, nothing to judge by:
    weak only below a weak hit)."""
    found = np.array(relevance, np.float64)
    if not len(found) or np.isnan(found).all():
        return [False] * len(found)
    floor = max(config.weak_below, float(np.nanmax(found)) - config.weak_gap)
    line = max((s for s, r in zip(scores, found, strict=True) if r < floor), default=None)
    return [line is not None and bool(s <= line) for s in scores]


class QueryContext:
    """One query against one corpus: embeddings and per-level scores computed once, on demand."""

    def __init__(
        self,
        searcher: Searcher,
        query: Query,
        config: SearchConfig,
        shared: dict | None = None,
        cache: dict | None = None,
    ):
        self.searcher = searcher
        self.corpus: Corpus = searcher.corpus
        self.query = query
        self.config = config
        self._cache: dict = {} if cache is None else cache
        self.timings: dict[str, float] = {}  # seconds per stage, for methods that report them
        self._rankings: list[tuple[Method, Ranking]] = []  # what each method ranked for this query
        self.shared: dict = shared or {}  # level name → the collection's `scale.Scale` (a sharded search's)

    def scaled(self, shared: dict) -> QueryContext:
        """This query's context scored on the collection's scales (`shared`: a sharded search's
        second round), with the embeddings and scores computed so far."""
        return QueryContext(self.searcher, self.query, self.config, shared, self._cache)

    def ranking(self, method: Method) -> Ranking:
        """`method.rank(self)`, ranked once per method for this query: what a search shows and
        what the evidence and the answerability stage then read (`Ranking.judged`)."""
        if (ranked := self.ranked(method)) is None:
            ranked = method.rank(self)
            self._rankings.append((method, ranked))
        return ranked

    def ranked(self, method: Method) -> Ranking | None:
        """What `method` ranked for this query (None: it has not ranked it)."""
        return next((r for m, r in self._rankings if m is method), None)

    def memo(self, key, make):
        """`make()` computed once per query and key."""
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def given(self, vector: np.ndarray) -> QueryContext:
        """This context with the query's embedding already made (a shard gets it from the router)."""
        self._cache[("vec", self.query.text)] = np.asarray(vector, np.float32)
        return self

    def vector(self, text: str | None = None) -> np.ndarray:
        text = self.query.text if text is None else text
        return self.memo(("vec", text), lambda: embed_queries(self.searcher.embedder, [text])[0])

    def visual_vector(self) -> np.ndarray:
        visual = self.searcher.visual
        if visual is None:
            raise IndexError_(
                "this method needs frame embeddings and a visual embedder",
                "index with --visual BACKEND --visual-model FOLDER (see docs/models.md)",
            )
        return self.memo("visual", lambda: visual.embed_texts([self.query.text])[0])

    def multilingual_vector(self, text: str | None = None) -> np.ndarray:
        """The query's multilingual-e5 embedding, for the videos embedded by it (`embed.e5`)."""
        text = self.query.text if text is None else text
        return self.memo(("e5", text), lambda: e5_of(self.searcher.resources).embed_queries([text])[0])

    def vector_of(self, video: int) -> np.ndarray:
        """The query's embedding in the space of `video`'s vectors."""
        return self.multilingual_vector() if self.corpus.is_multilingual(video) else self.vector()

    def dense(self, level: Level, text: str | None = None) -> np.ndarray:
        """Every item's similarity to the query (approximate on a level with an ANN index: see
        `Level.expand`); for scores inside one video use `dense_span`. The rows of videos in
        another language are scored by the multilingual embedder (`calibrated`)."""
        if level.ann is not None:
            return self.memo(("dense", id(level), text), lambda: level.expand(*self.candidates(level, text)))
        return self.memo(
            ("dense", id(level), text), lambda: self._mixed(level, np.asarray(level.vectors @ self.vector(text)), text)
        )

    def candidates(self, level: Level, text: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(rows, exact similarities) of the items the level's ANN index finds for the query, and
        every row of a video in another language (scored exactly by the multilingual embedder)."""
        ann = level.ann
        assert ann is not None, "candidates come from a level's ANN index"

        def found() -> tuple[np.ndarray, np.ndarray]:
            rows, scores = ann.search(
                self.vector(text), self.config.ann_probes or ann.probes, self.config.ann_shortlist
            )
            other = self._multilingual_rows(level)
            if not len(other):
                return rows, scores
            keep = ~np.isin(rows, other)
            rows = np.r_[rows[keep], other]
            scores = np.r_[scores[keep], calibrated(np.asarray(level.vectors[other]) @ self.multilingual_vector(text))]
            order = np.argsort(rows, kind="stable")
            return rows[order], scores[order].astype(np.float32)

        return self.memo(("ann", id(level), text), found)

    def dense_span(self, level: Level, lo: int, hi: int) -> np.ndarray:
        """Exact similarities of items lo..hi-1 (one video's) to the query."""
        if hi > lo and self.corpus.is_multilingual(int(level.owner[lo])):
            return calibrated(np.asarray(level.vectors[lo:hi]) @ self.multilingual_vector())
        if level.ann is None:
            return self.dense(level)[lo:hi]
        return level.span_similarity(self.vector(), lo, hi)

    def _multilingual_rows(self, level: Level) -> np.ndarray:
        return self.memo(("multilingual", id(level)), lambda: self.corpus.multilingual_rows(level))

    def _mixed(self, level: Level, scores: np.ndarray, text: str | None) -> np.ndarray:
        """`scores` with the rows of videos in another language scored by the multilingual embedder."""
        rows = self._multilingual_rows(level)
        if not len(rows):
            return scores
        out = np.array(scores, np.float32)
        out[rows] = calibrated(np.asarray(level.vectors[rows]) @ self.multilingual_vector(text))
        return out

    def lexical(self, level: Level) -> np.ndarray:
        return self.memo(("bm25", id(level)), lambda: level.bm25.scores(self.query.text))

    def lexical_top(self, level: Level, k: int, reads: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(rows, BM25 scores) of the level's `k` best items, best first (`BM25.top`)."""
        return self.memo(("bm25-top", id(level), k, reads), lambda: level.bm25.top(self.query.text, k, reads))


class Searcher:
    """Ranks a corpus with any registered method. Holds no per-query state: safe to share.

    `visual` is a function that makes the frame embedder on first use (text methods never call
    it; None: no frame embedder); `frames` the `FrameStore` of frame images, for judges that read
    them; `resources` where the methods' rerankers and pools are kept (`videorag.resources`: its
    owner's, else its own)."""

    def __init__(self, corpus: Corpus, embedder, visual=None, frames=None, resources: Resources | None = None):
        self.corpus = corpus
        self.rows: np.ndarray | None = None  # each video's row in the whole collection (a shard's), None: its own
        self.embedder = embedder
        self.frames = frames
        self.resources = own(resources)
        self._visual = visual
        self._made = visual is None
        self._lock = threading.Lock()

    @property
    def visual(self):
        """The frame embedder (made on first use), None without one."""
        if not self._made:
            with self._lock:
                if not self._made:
                    self._visual, self._made = self._visual(), True
        return self._visual

    def context(self, query: Query | str, config: SearchConfig) -> QueryContext:
        return QueryContext(self, Query(query) if isinstance(query, str) else query, config)

    def rank(self, query: Query | str, method: Method, config: SearchConfig) -> tuple[QueryContext, Ranking]:
        qc = self.context(query, config)
        return qc, method.rank(qc)

    def rank_ids(self, query: Query | str, method: Method, config: SearchConfig, k: int = 10) -> list[str]:
        """The `k` best video ids (what video-level evaluation needs; no moments computed)."""
        if not self.corpus.video_ids:
            return []
        with single_blas_thread():
            _, ranking = self.rank(query, method, config)
        return [self.corpus.video_ids[v] for v in top(ranking.videos, k)]

    def search(
        self,
        query: Query | str,
        method: Method,
        config: SearchConfig,
        top_k: int | None = None,
        moments: bool = False,
        timings: dict | None = None,
        context: QueryContext | None = None,
    ) -> list[Hit]:
        """Hits best first; `timings`, when given, receives the method's stage times (seconds);
        `context`: this query's context, shared with what else reads it (evidence for `ask`)."""
        top_k = top_k or config.top_k
        qc = context or self.context(query, config)
        hits = pick(self.found(qc, method, top_k, moments), top_k, moments, config)
        if timings is not None:
            timings.update(qc.timings)
        return hits

    def found(
        self, qc: QueryContext, method: Method, top_k: int, moments: bool = False, floor: float = -math.inf
    ) -> list[Found]:
        """The videos a search may show, best first: the `pool` best, each with its moments (its
        best one; `moments`: all of them, overlaps merged) and their relevance — those scoring
        at least `floor` (a shard: `scale.floor`); the rest with moments None. What `pick`
        makes hits of — from one corpus, or from every shard's (`videorag.shard`)."""
        if not self.corpus.video_ids:
            return []
        # one BLAS thread: the mat-vecs are memory-bound, and spinning BLAS threads would starve
        # the query embedder's threads (measured: 57 ms → 20 ms per query at 50k segments)
        with single_blas_thread():
            ranking = qc.ranking(method)
            videos = top(ranking.videos, pool(top_k, moments, qc.config))
            return [self._found(qc, ranking, int(v), moments, ranking.videos[v] >= floor) for v in videos]

    def _found(self, qc: QueryContext, ranking: Ranking, video: int, moments: bool, located: bool = True) -> Found:
        c = self.corpus
        row = video if self.rows is None else int(self.rows[video])
        score = float(ranking.videos[video])
        if not located:
            return Found(c.video_ids[video], c.paths[video], score, None, row)
        listed = ranking.moments(video, not moments)
        if moments:
            listed = merge_overlapping(listed, qc.config.moments.max_seconds)
        else:
            listed = listed[:1] or [Candidate(video, "video", 0.0, 0.0, 0.0, "none")]
        return Found(c.video_ids[video], c.paths[video], score, [(m, self.relevance(qc, m)) for m in listed], row)

    def hit(self, moment: Candidate, score: float, weak: bool = False) -> Hit:
        c = self.corpus
        return Hit(
            c.video_ids[moment.video],
            c.paths[moment.video],
            float(moment.start),
            float(moment.end),
            score,
            moment.text,
            weak,
        )

    def relevance(self, qc: QueryContext, moment: Candidate) -> float:
        """The best cosine similarity to the query of the segments the moment overlaps (NaN when
        it overlaps none: a frame-only moment is not judged weak): a measure of "about the query"
        that, unlike a method's score, means the same for every query."""
        level = self.corpus.segments
        lo, hi = level.span(moment.video)
        inside = np.flatnonzero(
            (level.starts[lo:hi] < max(moment.end, moment.start + 1e-3)) & (level.ends[lo:hi] > moment.start)
        )
        return float(qc.dense_span(level, lo, hi)[inside].max()) if len(inside) else float("nan")


@dataclass
class Found:
    """One video a search may show: its score and its moments, best first, each with its
    relevance (`Searcher.relevance`). Named by id, so shards' can be merged."""

    video_id: str
    path: str
    score: float
    moments: list[tuple[Candidate, float]] | None  # None: not located (below a shard's floor)
    row: int  # the video's row in the whole collection: ties go to the lower, as on one box

    @property
    def shown(self) -> list[tuple[Candidate, float]]:
        assert self.moments is not None, "only located videos are shown"
        return self.moments


def pool(top_k: int, moments: bool, config: SearchConfig) -> int:
    """How many best videos a search may show: `top_k`, or (`moments`) at least
    `MomentConfig.pool_videos`, whose moments compete."""
    return max(top_k, config.moments.pool_videos) if moments else top_k


def pick(found: list[Found], top_k: int, moments: bool, config: SearchConfig) -> list[Hit]:
    """Hits best first from the videos `Searcher.found` gives (one corpus's or every shard's):
    each of the `top_k` best videos at its best moment, or (`moments`) the `top_k` best moments
    of the pool, a moment's score mixing its video's (min-max over the pool) with its own.
    Videos not located (below a shard's floor) are left out: when every shard answered, none of
    them is among those shown."""
    ranked = sorted((f for f in found if f.moments is not None), key=lambda f: (-f.score, f.row))
    chosen = _moment_picks(ranked, top_k, config) if moments else [(f, *f.shown[0], f.score) for f in ranked[:top_k]]
    weak = weak_marks([r for _, _, r, _ in chosen], [s for *_, s in chosen], config)
    return [
        Hit(f.video_id, f.path, float(m.start), float(m.end), score, m.text, bool(w))
        for (f, m, _, score), w in zip(chosen, weak, strict=True)
    ]


def _moment_picks(ranked: list[Found], top_k: int, config: SearchConfig) -> list[tuple]:
    cfg = config.moments
    pool = ranked[: max(top_k, cfg.pool_videos)]
    scores = np.array([f.score for f in pool], np.float32).astype(np.float64)
    video_score = np.ones(len(pool)) if len(pool) and np.ptp(scores) < 1e-12 else minmax(scores)
    scored = [
        (cfg.video_weight * vs + (1 - cfg.video_weight) * m.score, f, m, r)
        for f, vs in zip(pool, video_score, strict=True)
        for m, r in f.shown
    ]
    scored.sort(key=lambda item: -item[0])
    return [(f, m, r, s) for s, f, m, r in scored[:top_k]]
