"""Retrieval: the contracts (`Query`, `Candidate`, `Method`, `Reranker`), the in-memory corpus,
moment localisation, and the searcher every caller ranks through."""

from . import snapshot
from .base import Candidate, Method, Query, Ranking, Reranker
from .corpus import Corpus, Level
from .searcher import Searcher

__all__ = ["Candidate", "Corpus", "Level", "Method", "Query", "Ranking", "Reranker", "Searcher", "snapshot"]
