"""File names as text: any name the file system allows, stored and printed safely."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

_CONTROL = {c: f"\\x{c:02x}" for c in range(32)} | {0x7F: "\\x7f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}


def path_text(path: str | Path) -> str:
    """A path as valid UTF-8 text (what the index stores): bytes that are not UTF-8 in a name
    (kept by Python as surrogate escapes) are written as \\xNN."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def printable(text: str) -> str:
    """One line of terminal-safe text: control characters (a newline in a file name), C1 controls
    and format characters (bidi overrides) escaped, undecodable bytes as \\xNN."""
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that is no escaped byte
        raw = text.encode("utf-8", "backslashreplace")
    text = raw.decode("utf-8", "backslashreplace").translate(_CONTROL)
    return "".join(f"\\u{ord(c):04x}" if unicodedata.category(c) in ("Cc", "Cf") else c for c in text)


def named(rows: list[dict], name: str) -> list[dict]:
    """The index rows (with `video_id` and `path`) that `name` gives by id or by path."""
    resolved = path_text(Path(name).expanduser().resolve())
    return [r for r in rows if resolved == r["path"] or name in (r["video_id"], r["path"])]
