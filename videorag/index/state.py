"""What the `Reads` and `Writes` mixins use of `VideoIndex`, declared once for the type checker
(nothing here runs: `VideoIndex` in `store.py` sets these attributes and defines these methods)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from .location import Location


class IndexState:
    """The attributes `VideoIndex.__init__` sets and the members the mixins call on each other."""

    location: Location
    meta: dict[str, Any]
    _tables: dict[str, Any]  # {name: lancedb Table} (lancedb ships no type information)

    if TYPE_CHECKING:

        @property
        def has_visual(self) -> bool: ...

        @property
        def has_captions(self) -> bool: ...

        @property
        def has_chunk_views(self) -> bool: ...

        @property
        def has_words(self) -> bool: ...

        @property
        def has_languages(self) -> bool: ...

        @property
        def has_chapters(self) -> bool: ...

        def upgrade(self) -> None: ...

        def _record(self, **entries) -> None: ...

        def writer(self) -> AbstractContextManager[None]: ...

        def orphans(self) -> dict[str, set[str]]: ...
