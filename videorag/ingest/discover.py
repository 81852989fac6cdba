"""Finding video files and identifying them by content."""
from __future__ import annotations

import hashlib
from pathlib import Path

_BLOCK = 1 << 20


def find_videos(paths: list[str | Path], extensions: tuple[str, ...]) -> tuple[list[Path], list[Path]]:
    """Expand files and folders (recursively) into (videos, missing paths), sorted, unique."""
    found: dict[Path, None] = {}
    missing = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and child.suffix.lower() in extensions:
                    found[child.resolve()] = None
        elif path.is_file():
            found[path.resolve()] = None  # named explicitly: try it whatever its extension
        else:
            missing.append(path)
    return list(found), missing


def content_id(path: Path) -> str:
    """A video's identity: BLAKE2b of its bytes (so renames and moves keep the id)."""
    digest = hashlib.blake2b(digest_size=12)
    with path.open("rb") as handle:
        while block := handle.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()
