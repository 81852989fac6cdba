"""Rerankers by name, behind the `Reranker` contract (`videorag.retrieve.base`): each rescores
a short list of candidates for a query.

| name | what it does |
|---|---|
| `dual-mmr` | RAG-Adapter's Dual Reranker: per frame, the normalised scores of every retriever that found it are summed; then MMR picks K diverse frames |
"""
from __future__ import annotations

from ..registry import Registry

RERANKERS = Registry("reranker", {
    "dual-mmr": "videorag.rerank.dual:DualMMR",
})
