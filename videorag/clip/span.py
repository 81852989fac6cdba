"""A clip's span, read and checked in words before anything is read or written."""

from __future__ import annotations

import re

from ..errors import VideoRAGError

MAX_SECONDS = 600.0  # the longest clip cut on request
PAST_END = 0.5  # seconds an end may lie past the video's duration (containers round it)


class ClipError(VideoRAGError):
    """A clip cannot be cut as asked: its span, its video or its output."""


def seconds(text: str | float) -> float:
    """`12.5`, `1:05` or `1:02:03.5` in seconds."""
    if isinstance(text, (int, float)):
        return float(text)
    if not re.fullmatch(r"-?\d+(\.\d+)?|\d+(:[0-5]?\d){1,2}(\.\d+)?", text.strip()):
        raise ClipError(f"{text!r} is not a time", "give seconds (75 or 75.5) or m:ss (1:15) or h:mm:ss")
    value = 0.0
    for part in text.strip().split(":"):
        value = value * 60 + float(part)
    return value


def span(start: str | float, end: str | float, duration: float) -> tuple[float, float]:
    """(start, end) in seconds, checked against the video's `duration`."""
    a, b = seconds(start), seconds(end)
    if a < 0 or b < 0:
        raise ClipError(f"a clip cannot start or end before 0:00 (asked {a:g}–{b:g} s)", "give times from 0 on")
    if b <= a:
        raise ClipError(f"the clip ends ({b:g} s) before it starts ({a:g} s)", "give START before END")
    if a >= duration or b > duration + PAST_END:
        raise ClipError(
            f"the video is {duration:.1f} s long; {a:g}–{b:g} s is past its end", f"give END ≤ {duration:.1f}"
        )
    if b - a > MAX_SECONDS:
        raise ClipError(f"a clip of {b - a:g} s is longer than {MAX_SECONDS:g} s", "cut it in parts")
    return a, min(b, duration)
