"""The embedded index: LanceDB tables for videos, text units (segments / chunks) and frames.
Imported lazily: a search served from the snapshot never loads pyarrow's or LanceDB's code."""

from __future__ import annotations

__all__ = ["VideoIndex", "VideoRecord"]


def __getattr__(name: str):
    if name in __all__:
        from . import store

        return getattr(store, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
