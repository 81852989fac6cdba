"""Which index a command uses when `--index` is not given, and why.

In order: `$VIDEORAG_INDEX`; `./videorag-index` when it exists here; the index built last by
`videorag index` or `videorag demo` (remembered in `$XDG_CONFIG_HOME/videorag/last-index`,
default `~/.config/videorag/last-index`); else `./videorag-index` (a new one). A command that
writes (`index`) never falls back to the remembered index: new videos go where the user is,
unless they name another index.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)
LOCAL = "videorag-index"
ENV = "VIDEORAG_INDEX"
REMEMBERED = "the index built last"


def state_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "videorag" / "last-index"


def default_index(writing: bool = False) -> tuple[str, str]:
    """(index location, why it is the one) for a command given no `--index`."""
    if os.environ.get(ENV):
        return os.environ[ENV], f"${ENV}"
    if Path(LOCAL).exists() or writing:
        return LOCAL, "the current folder"
    last = remembered()
    if last:
        return last, f"{REMEMBERED} (remembered in {state_file()})"
    return LOCAL, "the current folder"


def remembered() -> str | None:
    """The index `remember` wrote last, when it still exists (an `s3://` one is taken on trust)."""
    last = _last()
    return last if last and ("://" in last or Path(last).exists()) else None


def forgotten() -> str | None:
    """The folder `remember` wrote last when it is gone (moved or deleted), so that a command can
    say why it looks elsewhere; None when it is there or nothing was remembered."""
    last = _last()
    return last if last and "://" not in last and not Path(last).exists() else None


def _last() -> str | None:
    try:
        return state_file().read_text().strip() or None
    except OSError:
        return None


def absolute(location: str) -> str:
    """`location` as it reads from anywhere: a folder resolved, a URL as it is."""
    return location if "://" in location else str(Path(location).resolve())


def remember(location: str) -> None:
    """Make `location` (an index just built) the one the next command finds; best effort."""
    text = absolute(location)
    try:
        state_file().parent.mkdir(parents=True, exist_ok=True)
        state_file().write_text(text + "\n")
    except OSError as exc:
        log.info("could not remember the index in %s: %s", state_file(), exc)
