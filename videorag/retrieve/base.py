"""Retrieval contracts shared by every method, the CLI, the API and the evaluation harness.

- `Query`: what is asked (and, when a dataset gives one, another phrasing of it).
- `Candidate`: one scored unit — a segment, chunk, frame, caption or whole video — with its
  video, time span and the retriever (`source`) that found it.
- `Method`: a named recipe (retrievers + fusion + aggregation + rerankers) that turns a query
  into a `Ranking`: a score per video plus, per video, its moments best first.
- `Reranker`: rescores a short list of candidates for a query.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from ..types import Candidate

if TYPE_CHECKING:
    from ..types import Evidence
    from .searcher import QueryContext


@dataclass(frozen=True)
class Query:
    text: str
    question: str | None = None  # another phrasing of the same need (e.g. WikiHowQA's "How To …")


@dataclass
class Ranking:
    """A method's answer to one query: `videos[i]` scores corpus video i (higher is better);
    `moments(i, best_only)` lists that video's moments, best first (computed only for videos
    asked for; `best_only`: a plain search shows one a video, so a method may list just that)."""

    videos: np.ndarray
    moments: MomentList
    judged: list[Candidate] = field(default_factory=list)  # the steps a judge read, each scored by its P(yes)


class MomentList(Protocol):
    """`Ranking.moments`: a video's moments, best first."""

    def __call__(self, video: int, best_only: bool = False, /) -> list[Candidate]: ...


class Method(Protocol):
    """Required: `name` and `rank`. Optional: `evidence(request) -> list[Evidence]`, what the
    generator reads for a question (`videorag.methods.evidence`; default: an excerpt around each
    best video's moment). A method is built from a `SearchConfig` and holds no per-query state,
    so one instance serves concurrent queries; it reads only the query context's corpus."""

    name: str

    def rank(self, qc: QueryContext) -> Ranking: ...


# -- a method's optional capabilities (`isinstance(method, GathersEvidence)`) ----------------------
@runtime_checkable
class GathersEvidence(Protocol):
    """What the generator reads for a question is the method's own (rag-adapter, carve, judged)."""

    def evidence(self, request) -> list[Evidence]: ...


@runtime_checkable
class SharesStatistics(Protocol):
    """A method whose scores need the collection's statistics on a sharded index: each shard's
    `statistics`, `merged` into the collection's scales (`qc.shared`), and the `floor` a video's
    score must reach to be shown."""

    def statistics(self, qc: QueryContext, leaders: int = 0) -> dict: ...

    def merged(self, parts: list[dict]) -> dict: ...

    def floor(self, parts: list[dict], scales: dict, count: int) -> float: ...


class Reranker(Protocol):
    """Required: `name` and `rerank`, which returns the candidates rescored, best first.
    Scoring backends (`videorag.rerank.base.ScoringReranker`) also offer `score` and
    `modalities`."""

    name: str

    def rerank(self, qc: QueryContext, candidates: list[Candidate]) -> list[Candidate]: ...
