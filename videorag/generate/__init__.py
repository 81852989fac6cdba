"""Answer generation. Contract: `Generator.generate(question, evidence) -> Answer`, plus `name`.

Backends by name (`auto`, the default: llamacpp when the judge's model is installed, else
extractive): `extractive` (no model: the whole sentences that answer, as the judge found them), `openai` (any
OpenAI-compatible chat server; frames as images + transcripts, the paper's order),
`llamacpp` (a local GGUF model, llama.cpp in-process, text only; default the judge's model,
Qwen2.5-Coder-1.5B, else Gemma 3 270M).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, runtime_checkable

from ..config import GenerateConfig
from ..registry import Registry
from ..types import Answer, Evidence

BACKENDS = Registry(
    "generator",
    {
        "extractive": "videorag.generate.extractive:ExtractiveGenerator",
        "openai": "videorag.generate.openai:OpenAIGenerator",
        "llamacpp": "videorag.generate.llamacpp:LlamaCppGenerator",
    },
    traits={"openai": ("reads-images",)},
)


class Generator(Protocol):
    """Required: `name`, `generate`. Optional: `complete(prompt, max_tokens) -> str`, a raw
    completion offered by model-backed generators (used as a G-Eval judge, a reranking judge and by
    `eval make-qa`); `complete_with_images(prompt, jpegs, max_tokens)` where the model reads images
    (openai); `stream(question, evidence)`, the answer piece by piece (llamacpp, extractive)."""

    name: str

    def generate(self, question: str, evidence: list[Evidence]) -> Answer: ...


# -- optional capabilities: `isinstance(generator, Streams)` rather than a method looked up by name
@runtime_checkable
class Streams(Protocol):
    """The answer piece by piece: text pieces, then the Answer."""

    def stream(self, question: str, evidence: list[Evidence]) -> Iterator[str | Answer]: ...


@runtime_checkable
class Covers(Protocol):
    """The generator's own P(the evidence holds the answer), asked with the prompt it answers
    from (None: it cannot tell); answerability's `covered` signal."""

    def covered(self, question: str, evidence: list[Evidence]) -> float | None: ...


@runtime_checkable
class Completes(Protocol):
    """A raw completion of a prompt (a G-Eval judge, `eval make-qa`)."""

    def complete(self, prompt: str, max_tokens: int = 8) -> str: ...


@runtime_checkable
class CompletesWithImages(Protocol):
    """A raw completion of a prompt with images (a model that reads them)."""

    def complete_with_images(self, prompt: str, images: list[bytes], max_tokens: int = 8) -> str: ...


def create_generator(config: GenerateConfig, embedder=None, resources=None) -> Generator:
    """The generator `config.backend` names (`auto`: see `resolve_backend`); a model it loads is
    kept in `resources` (`videorag.resources`: its owner's, shared with the judge)."""
    return BACKENDS.create(resolve_backend(config.backend), config=config, embedder=embedder, resources=resources)


def resolve_backend(name: str) -> str:
    """`auto` is the llamacpp generator on the judge's model (Qwen2.5-Coder-1.5B) when it is
    installed — the generator that measures best on real speech — else the extractive one."""
    if name != "auto":
        return name
    from ..models import judge_available as available

    return "llamacpp" if available() else "extractive"
