"""X-CLIP (transformers `XCLIPModel`): a video-text model. `embed_video` pools a clip of frames
through its cross-frame transformer; `embed_images` embeds single frames with its image tower."""

from __future__ import annotations

import numpy as np

from ..embed import normalize
from ..registry import require
from .presets import text_config, vision_config
from .transformers_clip import _TransformersDualEncoder


class XCLIPEmbedder(_TransformersDualEncoder):
    family = "xclip"
    frames = 8  # frames per clip the cross-frame transformer expects

    def _classes(self, transformers):
        return transformers.XCLIPModel, transformers.XCLIPProcessor

    def _random_model(self):
        transformers = require("transformers", "visual")
        s = self._random_shape
        vision = dict(
            vision_config(s),
            num_frames=self.frames,
            mit_hidden_size=s.projection,
            mit_intermediate_size=s.projection * 4,
            mit_num_hidden_layers=1,
            mit_num_attention_heads=max(1, s.projection // 64),
        )
        config = transformers.XCLIPConfig(
            text_config=text_config(s),
            vision_config=vision,
            projection_dim=s.projection,
            prompt_layers=1,
            prompt_attention_heads=max(1, s.projection // 64),
        )
        return transformers.XCLIPModel(config)

    def _pixels(self, images: list):
        if self._processor is not None:
            import torch

            batch = self._processor(videos=[[_rgb(i) for i in images]], return_tensors="pt")["pixel_values"][0]
            return batch.to(self.device, dtype=next(self._model.parameters()).dtype) if torch else batch
        return super()._pixels(images)

    def embed_images(self, images: list) -> np.ndarray:
        """Per-frame vectors. X-CLIP's image tower exchanges messages across the frames of a
        clip, so frames go in consecutive groups of `frames` (the last group padded)."""
        self.warm_up()
        model, n = self._model, len(images)
        padded = list(images) + [images[-1]] * (-n % self.frames) if images else []
        self.batch_size = max(self.frames, self.batch_size // self.frames * self.frames)

        def forward(chunk):
            pooled = model.vision_model(pixel_values=self._pixels(chunk)).pooler_output
            return model.visual_projection(pooled)

        return self._batched(padded, forward)[:n]

    def embed_video(self, images: list) -> np.ndarray:
        """One vector for a clip: `frames` images spread over `images`, through the MIT."""
        import torch

        self.warm_up()
        picks = [images[int((i + 0.5) * len(images) / self.frames)] for i in range(self.frames)] if images else []
        if not picks:
            return np.zeros(self.dim, np.float32)
        with torch.inference_mode():
            video = self._pixels(picks).unsqueeze(0)
            features = self._model.get_video_features(pixel_values=video)
            features = getattr(features, "pooler_output", features)
        return normalize(features.float().cpu().numpy())[0]


def _rgb(item):
    from .preprocess import to_image

    return to_image(item)
