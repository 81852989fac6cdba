"""Search: the contracts (`Query`, `Candidate`, `Method`, `Reranker`), moment localisation, and
the searcher every caller ranks through, over the corpus of the search snapshot
(`videorag.snapshot`)."""

from ..snapshot.corpus import Corpus, Level
from .base import Candidate, Method, Query, Ranking, Reranker
from .searcher import Searcher

__all__ = ["Candidate", "Corpus", "Level", "Method", "Query", "Ranking", "Reranker", "Searcher"]
