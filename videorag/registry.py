"""Backends chosen by explicit name; heavy modules are imported only when chosen."""

from __future__ import annotations

import importlib
from typing import Any

from .errors import MissingDependencyError, UnknownBackendError


class Registry:
    """Maps a backend name to 'module:attr'; `create(name, ...)` imports and builds it.
    `traits` declare what a backend can do (e.g. a generator that "reads-images"), so callers
    ask the registry instead of comparing names."""

    def __init__(self, kind: str, entries: dict[str, str], traits: dict[str, tuple[str, ...]] | None = None):
        self.kind = kind
        self._entries = dict(entries)
        self._traits = {name: frozenset(found) for name, found in (traits or {}).items()}

    def names(self) -> list[str]:
        return sorted(self._entries)

    def traits(self, name: str) -> frozenset[str]:
        """What the backend `name` can do (empty for an unknown name)."""
        return self._traits.get(name, frozenset())

    def get(self, name: str) -> Any:
        if name not in self._entries:
            raise UnknownBackendError(
                f"unknown {self.kind} backend {name!r}", f"choose one of: {', '.join(self.names())}"
            )
        module, attr = self._entries[name].split(":")
        return getattr(importlib.import_module(module), attr)

    def name_of(self, cls: type) -> str | None:
        """The name `cls` is registered under (None: not registered, e.g. a test double)."""
        target = f"{cls.__module__}:{cls.__qualname__}"
        return next((name for name, entry in self._entries.items() if entry == target), None)

    def create(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return self.get(name)(*args, **kwargs)


def require(module: str, extra: str) -> Any:
    """Import an optional dependency or say which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{module!r} is not installed ({exc})", f"pip install 'videorag[{extra}]'"
        ) from exc
