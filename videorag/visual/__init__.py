"""Visual embeddings of frames and queries in one space (CLIP-style).

Contract: `VisualEmbedder.embed_images(list[PIL.Image]) -> (n, dim)` and
`embed_texts(list[str]) -> (n, dim)`, unit rows, plus `model_name` and `dim`.
Optional: `embed_video(list[PIL.Image]) -> (dim,)` for video-text models (X-CLIP).

Backends by name: `clip`, `siglip`, `xclip` (transformers; no torchvision needed) and
`open-clip` (extra `videorag[openclip]`, needs torchvision). Model specs: a local folder or hub
id of real weights, or a preset `random-tiny` / `random-base` — the real architecture built
without weights, for tests and for measuring speed where no weights can be had.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from ..config import IngestConfig
from ..registry import Registry

BACKENDS = Registry(
    "visual embedder",
    {
        "clip": "videorag.visual.transformers_clip:CLIPEmbedder",
        "siglip": "videorag.visual.transformers_clip:SiglipEmbedder",
        "xclip": "videorag.visual.xclip:XCLIPEmbedder",
        "open-clip": "videorag.visual.open_clip:OpenCLIPEmbedder",
    },
)


class VisualEmbedder(Protocol):
    model_name: str
    dim: int

    def embed_images(self, images: list) -> np.ndarray: ...

    def embed_texts(self, texts: list[str]) -> np.ndarray: ...


@runtime_checkable
class EmbedsVideo(Protocol):
    """A model with a video tower of its own (X-CLIP): a clip's vector from its frames, rather
    than the mean of the frames' vectors."""

    model_name: str

    def embed_video(self, images: list) -> np.ndarray: ...


def create_visual(
    backend: str, model: str | None = None, device: str | None = None, batch_size: int = 32
) -> VisualEmbedder:
    return BACKENDS.create(backend, model=model, device=device, batch_size=batch_size)


def of_index(cfg: IngestConfig, meta: dict) -> VisualEmbedder | None:
    """The frame embedder of an index: the configured one (`cfg.visual`), else the one the index
    was built with (its `meta`); None when it has none."""
    if cfg.visual:
        return create_visual(cfg.visual, cfg.visual_model)
    return create_visual(meta["visual_backend"], meta["visual_spec"]) if "visual_backend" in meta else None
