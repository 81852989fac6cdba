"""The index's metadata file (`videorag.json`: format, the models that made its embeddings), read
and checked without opening its tables."""

from __future__ import annotations

import json

from ..errors import IndexError_
from .location import locate

FORMAT = 4  # 2: a `words` table (word timings); 3: `languages`; 4: `chapters`. Older ones are read too (1:
# citations at sentence precision; 1-2: every video taken as English; 1-3: no chapters until `optimize`
# adds them); they gain the tables with their next video
READS = (1, 2, 3, 4)
META_FILE = "videorag.json"
CHANGED_FILE = ".changed"  # replaced by every write: its content is the index's change token


def read_meta(location) -> dict:
    """The metadata of the index at `location` (a path, URI or `location` object)."""
    location = locate(location)
    try:
        return json.loads(location.read(META_FILE))
    except (OSError, ValueError) as exc:
        raise IndexError_(
            f"index {location}: {META_FILE} cannot be read ({exc.__class__.__name__}: {exc})",
            "restore it from a backup, or re-index into a new directory",
        ) from exc


def write_meta(location, meta: dict) -> None:
    locate(location).write(META_FILE, json.dumps(meta, indent=2))


def open_meta(location) -> dict:
    """The metadata of the index at `location`, refused when there is none or its format is another."""
    location = locate(location)
    if not location.exists(META_FILE):
        raise no_index(location)
    meta = read_meta(location)
    if meta.get("format") not in READS:
        raise IndexError_(
            f"index {location} has format {meta.get('format')}, this version reads {' and '.join(map(str, READS))}",
            "re-index the videos into a new index directory",
        )
    return meta


def no_index(location, alternative: str = "") -> IndexError_:
    """The error of a location that holds no index (`search`, `ask` and `serve` refuse it), its
    hint naming the command that builds one, and `alternative`, another way out, after it."""
    hint = f"build one with: videorag index VIDEOS... --index {location}"
    return IndexError_(f"no videorag index at {location}", f"{hint}, or {alternative}" if alternative else hint)


def check_embedder(path, meta: dict, model_name: str, dim: int, fingerprint: str | None = None) -> None:
    """Refuse another text embedder than the index's: by name and size, and by fingerprint
    (a hash of its weights and config) where both are known — a different model saved under
    the same folder name is refused too."""
    known = meta.get("embed_fingerprint")
    if model_name != meta["embed_model"] or int(dim) != meta["dim"]:
        raise IndexError_(
            f"index {path} was built with text embedder {meta['embed_model']!r} "
            f"(dim {meta['dim']}), not {model_name!r} (dim {dim})",
            f"use {_backend(meta)}--embed-model {meta['embed_model']!r}, or index into a new directory",
        )
    if known and fingerprint and known != fingerprint:
        raise IndexError_(
            f"index {path} was built with another model named {model_name!r} "
            f"(weights fingerprint {known[:12]}, this one {fingerprint[:12]})",
            "point --embed-model at the folder the index was built with, or index into a new directory",
        )


def check_runtime(path, meta: dict, backend: str) -> None:
    """Refuse to add passages embedded by another runtime than the index's own (the same model on
    torch and on int8 ONNX gives close, not equal, vectors: one index holds one runtime's)."""
    recorded = meta.get("embed_backend")
    if recorded and recorded != backend:
        extra = f" (pip install 'videorag[{recorded}]')" if recorded == "sentence-transformers" else ""
        raise IndexError_(
            f"index {path} holds passages embedded by {recorded}, and new ones would be embedded by {backend}",
            f"add with --embed-backend {recorded}{extra}, or index everything into a new directory",
        )


def _backend(meta: dict) -> str:
    """`--embed-backend NAME ` of the index's embedder where it is recorded (a GGUF model's name
    alone would be handed to the default backend)."""
    return f"--embed-backend {meta['embed_backend']} " if meta.get("embed_backend") else ""


def check_visual(path, meta: dict, model_name: str, dim: int) -> None:
    """Refuse another frame embedder than the one that made the index's frame vectors."""
    if (model_name, int(dim)) != (meta.get("visual_model"), meta.get("visual_dim")):
        raise IndexError_(
            f"index {path} holds frame embeddings of {meta.get('visual_model')!r} "
            f"(dim {meta.get('visual_dim')}), not {model_name!r} (dim {dim})",
            f"use --visual-model {meta.get('visual_spec')!r}, or index into a new directory",
        )
