"""Retrieval: hybrid lexical (BM25) + dense search, fused, aggregated per video and segment."""
from .corpus import Corpus, Level
from .searcher import HybridSearcher

__all__ = ["Corpus", "HybridSearcher", "Level"]
