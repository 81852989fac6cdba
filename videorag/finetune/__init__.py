"""Fine-tuning the text encoder with Grouped-supervised Contrastive Learning (GCL, RAG-Adapter
§3.3): questions and the text units of their videos, grouped by video.

Stages: `data` (pairs, groups, video-disjoint splits, batches), `gcl` (the losses), `train`
(the loop, `TrainConfig`, the one-call `finetune`), `cli` (`videorag finetune`).
Beside it, `frame_selector` trains the learned frame scorers (`videorag train-frame-selector`).

    from videorag.finetune import TrainConfig, finetune, bench_pairs
    finetune(pairs, "my-encoder", config=TrainConfig(max_steps=100))   # then --embed-model my-encoder

Names are imported on first use, so importing the package does not load torch.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "Pair": "data",
    "Group": "data",
    "bench_pairs": "data",
    "index_pairs": "data",
    "split_by_group": "data",
    "split_queries": "data",
    "TrainConfig": "train",
    "TrainReport": "train",
    "finetune": "train",
    "load_model": "train",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
