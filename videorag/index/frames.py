"""The frame store: the sampled frames' JPEGs, the one thing a query may need that the search
snapshot does not hold. Only generators and judges that read images ask for them (and the
service's `/frame` route); the index (LanceDB) is opened on the first request, not before."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..types import Frame


class FrameStore(Protocol):
    """Required: `frames`, `frames_at` and `frame_near`."""

    def frames(self, video_id: str) -> list[Frame]:
        """A video's sampled frames, in time order."""
        ...

    def frames_at(self, video_id: str, times) -> list[Frame]:
        """The frames sampled at exactly these seconds, in time order."""
        ...

    def frame_near(self, video_id: str, t: float) -> Frame | None:
        """The sampled frame nearest to second `t` (None when the video has none)."""
        ...


class IndexFrames:
    """Frames read from the index `opener()` gives (opened on the first request, refreshed to
    other processes' writes on each: `Library.index`)."""

    def __init__(self, opener: Callable):
        self._opener = opener

    def frames(self, video_id: str) -> list[Frame]:
        return self._opener().frames(video_id)

    def frames_at(self, video_id: str, times) -> list[Frame]:
        return self._opener().frames_at(video_id, times)

    def frame_near(self, video_id: str, t: float) -> Frame | None:
        return self._opener().frame_near(video_id, t)
