"""Any OpenAI-compatible chat server (vLLM, Ollama, OpenAI, llama.cpp server).

The user message follows the VideoRAG paper's order [V1, t1, …, Vk, tk, q]: each retrieved
video's frames as images, then its transcript, and the question last; with `carve`, each chunk in
rank order in its winning view (a visual view's frames, a text view's text). Configuration:
base URL from config / $OPENAI_BASE_URL (default http://localhost:8000/v1), model from config /
$OPENAI_MODEL (default: the first model the server lists), key from $OPENAI_API_KEY.

Most local servers are text only (llama.cpp without `--mmproj`, Ollama and vLLM with a text
model): the first request whose images such a server refuses is sent again as text alone (a
visual view's chunk as its transcript), the server is remembered as text-only for the process
(`videorag.llm.server.takes_images`) and a warning says so once.
"""

from __future__ import annotations

import os

from ..config import GenerateConfig
from ..errors import GenerationError
from ..llm.server import chat, first_model, has_images, image_part, refused_images, server_url, takes_images
from ..types import Answer
from .prompt import INSTRUCTION, frames_text, transcript_text


class OpenAIGenerator:
    name = "openai"

    def __init__(self, config: GenerateConfig | None = None, embedder=None, resources=None):
        self.config = config or GenerateConfig(backend="openai")
        self.base_url = server_url(self.config.base_url)
        self.model = self.config.model or os.environ.get("OPENAI_MODEL")

    def messages(self, question: str, evidence: list, images: bool = True) -> list[dict]:
        """The paper's order; without `images` (a text-only server) every video as its transcript."""
        content: list[dict] = []
        for number, ev in enumerate(evidence, 1):  # in rank order: CARVE's chunks interleave views
            if images:
                content += [image_part(frame.jpeg) for frame in ev.frames]
            label = frames_text(number, ev) if images and ev.shows_frames else transcript_text(number, ev)
            content.append({"type": "text", "text": label})
        content.append({"type": "text", "text": f"Question: {question}"})
        return [{"role": "system", "content": INSTRUCTION}, {"role": "user", "content": content}]

    def generate(self, question: str, evidence: list) -> Answer:
        text = self._chat(
            lambda images: {
                "messages": self.messages(question, evidence, images),
                "max_tokens": self.config.max_tokens,
                "temperature": self.config.temperature,
            }
        )
        return Answer(question, text, [ev.citation for ev in evidence], self.name)

    def complete(self, prompt: str, max_tokens: int = 8) -> str:
        """Optional contract method: one user message in, the reply text out (e.g. a judge)."""
        return self.complete_with_images(prompt, [], max_tokens)

    def complete_with_images(self, prompt: str, images: list[bytes], max_tokens: int = 8) -> str:
        """Optional contract method: `complete` with JPEG images before the prompt in the one user
        message (e.g. a chunk's frames when writing synthetic questions); the prompt alone to a
        server that takes no images."""

        def body(shown: bool) -> dict:
            parts = [image_part(jpeg) for jpeg in images] if shown else []
            content = [*parts, {"type": "text", "text": prompt}] if parts else prompt
            return {"max_tokens": max_tokens, "temperature": 0.0, "messages": [{"role": "user", "content": content}]}

        return self._chat(body)

    def _chat(self, body) -> str:
        """The reply to `body(images)` (a request without its model), with images unless the
        server is known to take none; one that refuses them is asked again as text alone."""
        model = self.model or self._first_model()
        images = takes_images(self.base_url, model)
        request = {"model": model, **body(images)}
        try:
            return chat(self.base_url, request, self.config.timeout)
        except GenerationError as exc:
            if not (images and has_images(request) and refused_images(exc, self.base_url, model)):
                raise
        return chat(self.base_url, {"model": model, **body(False)}, self.config.timeout)

    def _first_model(self) -> str:
        self.model = first_model(self.base_url, self.config.timeout)
        return self.model
