"""Any OpenAI-compatible chat server (vLLM, Ollama, OpenAI, llama.cpp server).

The user message follows the VideoRAG paper's order [V1, t1, …, Vk, tk, q]: each retrieved
video's frames as images, then its transcript, and the question last. Configuration:
base URL from config / $OPENAI_BASE_URL (default http://localhost:8000/v1), model from config /
$OPENAI_MODEL (default: the first model the server lists), key from $OPENAI_API_KEY.
"""
from __future__ import annotations

import base64
import json
import logging
import os
import urllib.error
import urllib.request

from ..config import GenerateConfig
from ..errors import GenerationError
from ..types import Answer
from .prompt import INSTRUCTION, transcript_text

log = logging.getLogger(__name__)
DEFAULT_BASE_URL = "http://localhost:8000/v1"


class OpenAIGenerator:
    name = "openai"

    def __init__(self, config: GenerateConfig | None = None, embedder=None):
        self.config = config or GenerateConfig(backend="openai")
        self.base_url = server_url(self.config.base_url)
        self.model = self.config.model or os.environ.get("OPENAI_MODEL")

    def messages(self, question: str, evidence: list) -> list[dict]:
        content: list[dict] = []
        for number, ev in enumerate(evidence, 1):
            content += [image_part(frame.jpeg) for frame in ev.frames]
            content.append({"type": "text", "text": transcript_text(number, ev)})
        content.append({"type": "text", "text": f"Question: {question}"})
        return [{"role": "system", "content": INSTRUCTION}, {"role": "user", "content": content}]

    def generate(self, question: str, evidence: list) -> Answer:
        body = {"model": self.model or self._first_model(), "messages": self.messages(question, evidence),
                "max_tokens": self.config.max_tokens, "temperature": self.config.temperature}
        text = reply_text(self._call("/chat/completions", body), self.base_url)
        return Answer(question, text, [ev.citation for ev in evidence], self.name)

    def complete(self, prompt: str, max_tokens: int = 8) -> str:
        """Optional contract method: one user message in, the reply text out (e.g. a judge)."""
        body = {"model": self.model or self._first_model(), "max_tokens": max_tokens, "temperature": 0.0,
                "messages": [{"role": "user", "content": prompt}]}
        return self._call("/chat/completions", body)["choices"][0]["message"]["content"]

    def _first_model(self) -> str:
        self.model = first_model(self.base_url, self.config.timeout)
        return self.model

    def _call(self, route: str, body: dict | None) -> dict:
        return call(self.base_url, route, body, self.config.timeout)


# -- the request code, shared with the openai captioner (videorag.caption.openai) ----------------
def server_url(configured: str | None) -> str:
    """The server URL: configured, else $OPENAI_BASE_URL, else DEFAULT_BASE_URL."""
    return (configured or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")


def image_part(jpeg: bytes) -> dict:
    """A JPEG as an `image_url` content part (a data URL)."""
    return {"type": "image_url",
            "image_url": {"url": "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")}}


def reply_text(reply: dict, url: str) -> str:
    """The stripped text of a chat completion, or a GenerationError quoting the reply."""
    try:
        return reply["choices"][0]["message"]["content"].strip()
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise GenerationError(f"unexpected reply from {url}: {str(reply)[:200]}",
                              "check that the server speaks the OpenAI chat API") from exc


def first_model(url: str, timeout: float) -> str:
    """The id of the first model the server lists."""
    models = call(url, "/models", None, timeout).get("data") or []
    if not models:
        raise GenerationError(f"{url} lists no models", "set --model or $OPENAI_MODEL")
    return models[0]["id"]


def call(url: str, route: str, body: dict | None, timeout: float) -> dict:
    """POST `body` as JSON to `url + route` (GET when None); the decoded JSON reply.
    The key, when the server wants one, comes from $OPENAI_API_KEY only."""
    headers = {"Content-Type": "application/json"}
    if key := os.environ.get("OPENAI_API_KEY"):
        headers["Authorization"] = f"Bearer {key}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url + route, data=data, headers=headers,
                                     method="POST" if data else "GET")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read().decode())
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode(errors="replace")[:300]
        raise GenerationError(f"{url}{route} answered {exc.code}: {detail}",
                              "check the model name and $OPENAI_API_KEY") from exc
    except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
        raise GenerationError(f"cannot reach {url} ({exc})",
                              "start the server or set --base-url / $OPENAI_BASE_URL") from exc
