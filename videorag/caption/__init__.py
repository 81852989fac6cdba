"""Frame captions (RAG-Adapter's CaptionsDB). Contract: `Captioner.caption(frames, segments) ->
list[Caption]`, plus `name` and `model_name` (recorded in the index, which refuses another).

Backends by name: `ocr` (default offline choice: on-screen text read by Tesseract),
`openai` (any OpenAI-compatible vision-language server). Both describe only frames that differ
from the last kept one, and join each description with the transcript around the frame:
"on screen: … | said: …".
"""

from __future__ import annotations

from ..registry import Registry
from .base import Captioner, caption_frames, join, said_around

BACKENDS = Registry(
    "captioner",
    {
        "ocr": "videorag.caption.ocr:OCRCaptioner",
        "openai": "videorag.caption.openai:OpenAICaptioner",
    },
)

__all__ = ["BACKENDS", "Captioner", "caption_frames", "create_captioner", "join", "said_around"]


def create_captioner(name: str, model: str | None = None, base_url: str | None = None) -> Captioner:
    """The backend `name`. Every backend takes `model` and `base_url` (the server of server
    backends; ignored by ocr), so registered third-party backends are built the same way."""
    return BACKENDS.create(name, model=model, base_url=base_url)
