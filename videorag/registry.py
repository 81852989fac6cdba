"""Backends chosen by explicit name; heavy modules are imported only when chosen."""
from __future__ import annotations

import importlib
from typing import Any

from .errors import MissingDependencyError, UnknownBackendError


class Registry:
    """Maps a backend name to 'module:attr'; `create(name, ...)` imports and builds it."""

    def __init__(self, kind: str, entries: dict[str, str]):
        self.kind = kind
        self._entries = dict(entries)

    def names(self) -> list[str]:
        return sorted(self._entries)

    def register(self, name: str, target: str) -> None:
        self._entries[name] = target

    def get(self, name: str) -> Any:
        if name not in self._entries:
            raise UnknownBackendError(
                f"unknown {self.kind} backend {name!r}",
                f"choose one of: {', '.join(self.names())}")
        module, attr = self._entries[name].split(":")
        return getattr(importlib.import_module(module), attr)

    def create(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return self.get(name)(*args, **kwargs)


def require(module: str, extra: str) -> Any:
    """Import an optional dependency or say which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{module!r} is not installed ({exc})",
            f"pip install 'videorag[{extra}]'") from exc
