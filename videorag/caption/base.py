"""The captioner contract and what every backend shares: deduplicate frames, describe only the
distinct ones, join each description with what is said around the frame.

A backend needs `name`, `model_name` and `caption(frames, segments)`. Backends that only turn
distinct frames into text can implement `describe(frames) -> list[str]` and let
`caption_frames` do the rest (deduplication, transcript joining, empty captions dropped).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..types import Caption, Frame, Segment
from .dedup import CHANGED_SHARE, distinct

SAID_SECONDS = 3.0  # transcript around a frame: segments overlapping t ± this many seconds


class Captioner(Protocol):
    """Required: `name` (registry name), `model_name` (recorded in the index), `caption`."""

    name: str
    model_name: str

    def caption(self, frames: list[Frame], segments: list[Segment]) -> list[Caption]:
        """One caption per frame that has anything to say, at the frame's time, time order."""
        ...


def said_around(segments: list[Segment], t: float, seconds: float = SAID_SECONDS) -> str:
    """The text of the segments overlapping [t - seconds, t + seconds], in order."""
    return " ".join(
        s.text.strip() for s in segments if s.end >= t - seconds and s.start <= t + seconds and s.text.strip()
    )


def join(label: str, seen: str, said: str) -> str:
    """'LABEL: seen | said: said', either part left out when empty."""
    parts = ([f"{label}: {seen}"] if seen else []) + ([f"said: {said}"] if said else [])
    return " | ".join(parts)


def seen(caption: str) -> str:
    """The on-screen part of a caption made by `join` ("" when it has none)."""
    first = caption.split(" | said: ", 1)[0]
    return "" if first.startswith("said: ") else first.split(": ", 1)[-1]


def caption_frames(
    frames: list[Frame],
    segments: list[Segment],
    describe: Callable[[list[Frame]], list[str]],
    label: str,
    said_seconds: float = SAID_SECONDS,
    changed_share: float = CHANGED_SHARE,
) -> list[Caption]:
    """Describe the distinct frames only (a repeated frame reuses the description of the last
    kept one), then join each frame's description with the transcript around it."""
    owners = distinct(frames, changed_share)
    kept = sorted(set(owners))
    seen = dict(zip(kept, describe([frames[i] for i in kept]), strict=True))
    captions = []
    for frame, owner in zip(frames, owners, strict=True):
        text = join(label, seen[owner], said_around(segments, frame.t, said_seconds))
        if text:
            captions.append(Caption(frame.t, text))
    return captions
