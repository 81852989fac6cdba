"""Finding video files and identifying them by content."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

_BLOCK = 1 << 20


@dataclass
class Found:
    """Video files under the given paths, and a one-line problem per path that could not be read."""

    files: list[Path] = field(default_factory=list)
    problems: list[tuple[Path, str]] = field(default_factory=list)


def find_videos(paths: Sequence[str | Path], extensions: tuple[str, ...]) -> Found:
    """Expand files and folders (recursively) into video files (sorted, unique) and problems
    (missing paths, folders that cannot be listed)."""
    found = Found()
    seen: dict[Path, None] = {}  # an insertion-ordered set
    for raw in paths:
        path = Path(raw).expanduser()
        try:
            if path.is_dir():
                for child in _walk(path, found):
                    if child.suffix.lower() in extensions:
                        seen[child.resolve()] = None
            elif path.is_file():
                seen[path.resolve()] = None  # named explicitly: try it whatever its extension
            else:
                found.problems.append((path, "no such file or folder"))
        except (OSError, RuntimeError, ValueError) as exc:  # a name too long, a loop, a NUL byte
            found.problems.append((path, f"cannot be read ({getattr(exc, 'strerror', None) or exc})"))
    found.files = list(seen)
    return found


def none_exist(paths: Sequence[str | Path]) -> bool:
    """Whether not one of `paths` exists (so there is nothing to index); False for no paths."""

    def exists(raw) -> bool:
        try:
            return Path(raw).expanduser().exists()
        except (OSError, RuntimeError, ValueError):  # unreadable, ~nosuchuser, a NUL byte: find_videos says
            return True

    return bool(paths) and not any(exists(p) for p in paths)


def _walk(folder: Path, found: Found):
    def unreadable(exc: OSError) -> None:
        found.problems.append((Path(exc.filename or folder), f"folder cannot be read ({exc.strerror})"))

    for root, dirs, files in os.walk(folder, onerror=unreadable):
        dirs.sort()
        for name in sorted(files):
            child = Path(root, name)
            if child.is_file():
                yield child


def content_id(path: Path) -> str:
    """A video's identity: BLAKE2b of its bytes (so renames and moves keep the id). Raises OSError
    when the file cannot be read."""
    digest = hashlib.blake2b(digest_size=12)
    with path.open("rb") as handle:
        while block := handle.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def inside(path: Path, roots: tuple[Path, ...] | None) -> bool:
    """Whether `path`, symlinks resolved, lies in one of `roots` (None: no confinement)."""
    if roots is None:
        return True
    try:
        real = Path(path).resolve()
    except (OSError, RuntimeError, ValueError):
        return False
    return any(real == root or real.is_relative_to(root) for root in roots)
