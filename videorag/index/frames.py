"""The frame store: the sampled frames' JPEGs, the one thing a query may need that the search
snapshot does not hold. Only generators and judges that read images ask for them (and the
service's `/frame` route); the index (LanceDB) is opened on the first request, not before."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

from ..types import Frame


class FrameStore(Protocol):
    """Required: `frames` and `frame_near`."""

    def frames(self, video_id: str) -> list[Frame]:
        """A video's sampled frames, in time order."""
        ...

    def frame_near(self, video_id: str, t: float) -> Frame | None:
        """The sampled frame nearest to second `t` (None when the video has none)."""
        ...


class IndexFrames:
    """Frames read from the index that `opener()` opens (on the first request)."""

    def __init__(self, opener: Callable):
        self._opener = opener
        self._index = None
        self._lock = threading.Lock()

    @property
    def index(self):
        with self._lock:
            if self._index is None:
                self._index = self._opener()
            return self._index

    def frames(self, video_id: str) -> list[Frame]:
        return self.index.frames(video_id)

    def frame_near(self, video_id: str, t: float) -> Frame | None:
        return self.index.frame_near(video_id, t)
