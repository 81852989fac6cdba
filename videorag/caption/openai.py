"""Frame captions from any OpenAI-compatible vision-language server (vLLM, Ollama, OpenAI, …).

Each distinct frame (see `dedup`) goes as an image with a short captioning prompt; the reply is
joined with what is said around the frame. Server, model and key as for the `openai` generator:
`caption_base_url` / $OPENAI_BASE_URL, `caption_model` / $OPENAI_MODEL (else the first model the
server lists), $OPENAI_API_KEY. Requests go through `videorag.llm.server`. A server that
takes no images (most local ones serve a text model) cannot caption: a `CaptionError` says so,
at once for every later frame.
"""

from __future__ import annotations

import logging
import os

from ..errors import CaptionError, GenerationError
from ..llm.server import chat, first_model, image_part, refused_images, server_url, takes_images
from ..types import Caption, Frame, Segment
from .base import SAID_SECONDS, caption_frames
from .dedup import CHANGED_SHARE

log = logging.getLogger(__name__)

PROMPT = (
    "Describe this video frame in one or two sentences: the setting, the objects, the people "
    "and what they are doing, and any text shown on screen. Do not guess beyond the picture."
)


class OpenAICaptioner:
    name = "openai"

    def __init__(
        self,
        model: str | None = None,
        base_url: str | None = None,
        max_tokens: int = 96,
        timeout: float = 120.0,
        said_seconds: float = SAID_SECONDS,
        changed_share: float = CHANGED_SHARE,
    ):
        self.base_url = server_url(base_url)
        self._model = model or os.environ.get("OPENAI_MODEL")
        self.max_tokens, self.timeout = max_tokens, timeout
        self.said_seconds, self.changed_share = said_seconds, changed_share

    @property
    def model_name(self) -> str:
        """The configured model, else the first one the server lists (asked once)."""
        if self._model is None:
            self._model = first_model(self.base_url, self.timeout)
        return self._model

    def caption(self, frames: list[Frame], segments: list[Segment]) -> list[Caption]:
        return caption_frames(frames, segments, self.describe, "seen", self.said_seconds, self.changed_share)

    def describe(self, frames: list[Frame]) -> list[str]:
        return [self.describe_one(frame) for frame in frames]

    def describe_one(self, frame: Frame) -> str:
        if not takes_images(self.base_url, self.model_name):
            raise self._no_images()
        content = [image_part(frame.jpeg), {"type": "text", "text": PROMPT}]
        body = {
            "model": self.model_name,
            "messages": [{"role": "user", "content": content}],
            "max_tokens": self.max_tokens,
            "temperature": 0.0,
        }
        try:
            return " ".join(chat(self.base_url, body, self.timeout).split())
        except GenerationError as exc:
            if refused_images(exc, self.base_url, self.model_name, warn=False):
                raise self._no_images(f" ({exc.reply})") from exc
            raise

    def _no_images(self, said: str = "") -> CaptionError:
        return CaptionError(
            f"{self.base_url} (model {self.model_name}) takes no images{said}: the openai captioner describes frames",
            "serve a vision-language model (llama.cpp with --mmproj, "
            "a vision model in Ollama or vLLM), or caption with --captions ocr",
        )
