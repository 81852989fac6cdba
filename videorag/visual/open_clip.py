"""OpenCLIP (`open_clip`), an optional extra: `pip install 'videorag[openclip]'`. It needs
torchvision, which on these machines imports only with torch 2.14.1 + torchvision 0.29.1.
Model spec: an architecture name (weights from `pretrained=` tag after a colon, e.g.
`ViT-B-32:laion2b_s34b_b79k`, or a local checkpoint path after the colon); `random-tiny` /
`random-base` build the architecture without weights."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..embed import normalize
from ..registry import require

_RANDOM_ARCH = {"random-tiny": "ViT-B-32", "random-base": "ViT-B-32"}


class OpenCLIPEmbedder:
    def __init__(self, model: str | None = None, device: str | None = None, batch_size: int = 32):
        self.spec = model or "ViT-B-32"
        self.device = device
        self.batch_size = batch_size
        self.model_name = f"open-clip:{self.spec}"
        # open_clip's model, image transform and tokenizer (loaded through `require`), made by warm_up
        self._model: Any = None
        self._preprocess: Any = None
        self._tokenizer: Any = None

    def warm_up(self) -> None:
        if self._model is not None:
            return
        open_clip = require("open_clip", "openclip")
        torch = require("torch", "visual")
        self.device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        arch, _, pretrained = self.spec.partition(":")
        arch = _RANDOM_ARCH.get(arch, arch)
        torch.manual_seed(0)
        self._model, _, self._preprocess = open_clip.create_model_and_transforms(
            arch, pretrained=pretrained or None, device=self.device
        )
        self._model.eval()
        self._tokenizer = open_clip.get_tokenizer(arch)

    @property
    def dim(self) -> int:
        self.warm_up()
        return int(self._model.text_projection.shape[1])

    def embed_images(self, images: list) -> np.ndarray:
        import torch

        from .preprocess import to_image

        self.warm_up()
        out = []
        with torch.inference_mode():
            for lo in range(0, len(images), self.batch_size):
                batch = torch.stack([self._preprocess(to_image(i)) for i in images[lo : lo + self.batch_size]])
                out.append(self._model.encode_image(batch.to(self.device)).float().cpu().numpy())
        return normalize(np.concatenate(out)) if out else np.zeros((0, self.dim), np.float32)

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        import torch

        self.warm_up()
        with torch.inference_mode():
            features = self._model.encode_text(self._tokenizer(list(texts)).to(self.device))
        return normalize(features.float().cpu().numpy())
