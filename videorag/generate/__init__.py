"""Answer generation. Contract: `Generator.generate(question, evidence) -> Answer`, plus `name`.

Backends by name (`auto`, the default: llamacpp when the judge's model is installed, else
extractive): `extractive` (no model: the whole sentences that answer, as the judge found them), `openai` (any
OpenAI-compatible chat server; frames as images + transcripts, the paper's order),
`llamacpp` (a local GGUF model, llama.cpp in-process, text only; default Gemma 3 270M).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from ..config import GenerateConfig
from ..registry import Registry
from ..types import Answer, Citation, Frame, Hit, Segment

BACKENDS = Registry("generator", {
    "extractive": "videorag.generate.extractive:ExtractiveGenerator",
    "openai": "videorag.generate.openai:OpenAIGenerator",
    "llamacpp": "videorag.generate.llamacpp:LlamaCppGenerator",
}, traits={"openai": ("reads-images",)})


@dataclass
class Evidence:
    """One retrieved video (or, for CARVE, one chunk) as the generator sees it: the hit, a
    transcript excerpt, frames. `view` is CARVE's winning view of the chunk: a generator that
    reads images shows a visual view's frames instead of its text; the citation is the hit's
    moment."""

    hit: Hit
    segments: list[Segment]
    frames: list[Frame] = field(default_factory=list)
    view: str | None = None
    screen: str = ""   # what the screen shows during the excerpt (OCR captions), when the index has them
    steps: list = field(default_factory=list)   # the judged steps inside it (retrieve.base.Candidate,
                                                # their own span and sentence, score P(yes)), best first

    @property
    def shows_frames(self) -> bool:
        return self.view in ("visual-frame", "visual-clip") and bool(self.frames)

    @property
    def citation(self) -> Citation:
        if not self.segments or self.view:
            return self.hit.citation
        return Citation(self.hit.video_id, self.hit.path, self.segments[0].start, self.segments[-1].end)

    @property
    def transcript(self) -> str:
        return " ".join(s.text for s in self.segments)


class Generator(Protocol):
    """Required: `name`, `generate`. Optional: `complete(prompt, max_tokens) -> str`, a raw
    completion offered by model-backed generators (used as a G-Eval judge, a reranking judge and by
    `eval make-qa`); `complete_with_images(prompt, jpegs, max_tokens)` where the model reads images
    (openai); `stream(question, evidence)`, the answer piece by piece (llamacpp, extractive)."""

    name: str

    def generate(self, question: str, evidence: list[Evidence]) -> Answer:
        ...


def create_generator(config: GenerateConfig, embedder=None) -> Generator:
    """The generator `config.backend` names (`auto`: see `resolve_backend`)."""
    return BACKENDS.create(resolve_backend(config.backend), config=config, embedder=embedder)


def resolve_backend(name: str) -> str:
    """`auto` is the llamacpp generator on the judge's model (Qwen2.5-Coder-1.5B) when it is
    installed — the generator that measures best on real speech — else the extractive one."""
    if name != "auto":
        return name
    from ..models import judge_available as available

    return "llamacpp" if available() else "extractive"
