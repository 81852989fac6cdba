"""Model presets as data. `random-*` presets build the real architecture without weights (tests,
speed measurements); anything else is a local folder or a hub id of real weights."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Shape:
    hidden: int
    layers: int
    heads: int
    intermediate: int
    image: int
    patch: int
    projection: int
    text_hidden: int
    text_heads: int
    vocab: int = 1000
    text_length: int = 32


RANDOM = {
    "random-tiny": Shape(64, 2, 2, 128, 64, 16, 64, 64, 2),
    "random-base": Shape(768, 12, 12, 3072, 224, 32, 512, 512, 8, vocab=49408, text_length=77),
}

DEFAULT_HUB = {
    "clip": "openai/clip-vit-base-patch32",
    "siglip": "google/siglip-base-patch16-224",
    "xclip": "microsoft/xclip-base-patch32",
    "open-clip": "ViT-B-32",
}


def vision_config(shape: Shape) -> dict:
    return dict(
        hidden_size=shape.hidden,
        num_hidden_layers=shape.layers,
        num_attention_heads=shape.heads,
        intermediate_size=shape.intermediate,
        image_size=shape.image,
        patch_size=shape.patch,
    )


def text_config(shape: Shape) -> dict:
    return dict(
        hidden_size=shape.text_hidden,
        num_hidden_layers=shape.layers,
        num_attention_heads=shape.text_heads,
        intermediate_size=shape.text_hidden * 4,
        vocab_size=shape.vocab,
        max_position_embeddings=shape.text_length,
        bos_token_id=shape.vocab - 2,
        eos_token_id=shape.vocab - 1,
        pad_token_id=0,
    )
