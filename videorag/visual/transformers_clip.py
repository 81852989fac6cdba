"""CLIP and SigLIP through transformers (`CLIPModel`, `SiglipModel`): frames and text queries in
one embedding space. Batched; fp16 on GPU."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np

from ..embed import normalize
from ..errors import ModelNotFoundError
from ..models import hub_offline
from ..registry import require
from .preprocess import hashed_tokens, pixels
from .presets import DEFAULT_HUB, RANDOM, Shape, text_config, vision_config

log = logging.getLogger(__name__)


class _TransformersDualEncoder:
    family = "clip"

    def __init__(self, model: str | None = None, device: str | None = None, batch_size: int = 32):
        self.spec = model or DEFAULT_HUB[self.family]
        self.device = device
        self.batch_size = batch_size
        self.model_name = f"{self.family}:{Path(self.spec).name if Path(self.spec).exists() else self.spec}"
        self._model: Any = None  # a transformers model (loaded through `require`), made by warm_up
        self._processor: Any = None  # its processor; None for a random architecture
        self._shape = RANDOM.get(self.spec)

    # -- loading ------------------------------------------------------------------------------
    def warm_up(self) -> None:
        if self._model is not None:
            return
        torch = require("torch", "visual")
        self.device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        if self._shape is not None:
            torch.manual_seed(0)  # a fixed random architecture: same vectors every run
            self._model = self._random_model()
        else:
            self._model, self._processor = self._pretrained()
        self._model.eval().to(self.device)
        if self.device.startswith("cuda"):
            self._model.half()

    def _pretrained(self):
        transformers = require("transformers", "visual")
        if not Path(self.spec).exists() and hub_offline():
            raise ModelNotFoundError(
                f"visual model {self.spec!r} is not a local folder and the hub is offline",
                "pass a folder with the model's weights (see docs/models.md: real CLIP weights)",
            )
        model_cls, proc_cls = self._classes(transformers)
        return model_cls.from_pretrained(self.spec), proc_cls.from_pretrained(self.spec)

    def _classes(self, transformers):
        return transformers.CLIPModel, transformers.CLIPProcessor

    def _random_model(self):
        transformers = require("transformers", "visual")
        s = self._random_shape
        config = transformers.CLIPConfig(
            text_config=text_config(s), vision_config=vision_config(s), projection_dim=s.projection
        )
        return transformers.CLIPModel(config)

    @property
    def dim(self) -> int:
        self.warm_up()
        return int(self._model.config.projection_dim)

    # -- inputs -------------------------------------------------------------------------------
    def _pixels(self, images: list):
        import torch

        if self._processor is not None:
            batch = self._processor(images=[_rgb(i) for i in images], return_tensors="pt")["pixel_values"]
        else:
            batch = torch.from_numpy(pixels(images, self._random_shape.image))
        return batch.to(self.device, dtype=next(self._model.parameters()).dtype)

    def _tokens(self, texts: list[str]) -> dict:
        import torch

        if self._processor is not None:
            enc = self._processor(text=texts, return_tensors="pt", padding=self._padding, truncation=True)
            return {k: v.to(self.device) for k, v in enc.items() if k in ("input_ids", "attention_mask")}
        s = self._random_shape
        ids, mask = hashed_tokens(texts, s.vocab, s.text_length, s.vocab - 2, s.vocab - 1)
        return {
            "input_ids": torch.from_numpy(ids).to(self.device),
            "attention_mask": torch.from_numpy(mask).to(self.device),
        }

    _padding: bool | str = True

    @property
    def _random_shape(self) -> Shape:
        """The random architecture's shape (a model without a processor is one)."""
        assert self._shape is not None, f"{self.spec} is not a random architecture"
        return self._shape

    # -- embedding ----------------------------------------------------------------------------
    def embed_images(self, images: list) -> np.ndarray:
        self.warm_up()
        return self._batched(images, lambda chunk: self._model.get_image_features(pixel_values=self._pixels(chunk)))

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        self.warm_up()
        return self._batched(list(texts), lambda chunk: self._model.get_text_features(**self._tokens(chunk)))

    def _batched(self, items: list, forward) -> np.ndarray:
        import torch

        if not items:
            return np.zeros((0, self.dim), np.float32)
        out = []
        with torch.inference_mode():
            for lo in range(0, len(items), self.batch_size):
                features = forward(items[lo : lo + self.batch_size])
                features = getattr(features, "pooler_output", features)
                out.append(features.float().cpu().numpy())
        return normalize(np.concatenate(out))


class CLIPEmbedder(_TransformersDualEncoder):
    family = "clip"


class SiglipEmbedder(_TransformersDualEncoder):
    family = "siglip"
    _padding = "max_length"

    def _classes(self, transformers):
        return transformers.SiglipModel, transformers.AutoProcessor

    def _random_model(self):
        transformers = require("transformers", "visual")
        s = self._random_shape
        text = {k: v for k, v in text_config(s).items() if k != "bos_token_id"}
        text.update(
            hidden_size=s.hidden,
            intermediate_size=s.intermediate,
            num_attention_heads=s.heads,
            projection_size=s.hidden,
        )  # SigLIP has no projection: both towers share a width
        config = transformers.SiglipConfig(text_config=text, vision_config=vision_config(s))
        return transformers.SiglipModel(config)

    @property
    def dim(self) -> int:
        self.warm_up()
        return int(self._model.config.vision_config.hidden_size)


def _rgb(item):
    from .preprocess import to_image

    return to_image(item)
