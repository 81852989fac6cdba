"""Frame captions (RAG-Adapter's CaptionsDB). Contract: `Captioner.caption(frames, segments) ->
list[Caption]`, plus `name` and `model_name` (recorded in the index, which refuses another).

Backends by name: `ocr` (default offline choice: on-screen text read by Tesseract),
`openai` (any OpenAI-compatible vision-language server). Both describe only frames that differ
from the last kept one, and join each description with the transcript around the frame:
"on screen: … | said: …".
"""

from __future__ import annotations

from ..config import IngestConfig
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


def of_index(cfg: IngestConfig, meta: dict) -> Captioner | None:
    """The frame captioner of an index: the configured one (`cfg.captioner`), else the one the
    index was built with (a captioned index stays complete); None when captions are off."""
    known = meta.get("captioner") or {}
    if not (name := cfg.captioner or known.get("name")):
        return None
    return create_captioner(name, cfg.caption_model if cfg.captioner else known.get("model"), cfg.caption_base_url)
