"""Text units of a video: bounded segments, fixed-window chunks, and model-sized pieces."""

from __future__ import annotations

import math

from ..types import Segment


def bound_segments(segments: list[Segment], max_seconds: float) -> list[Segment]:
    """Split segments longer than `max_seconds` into word groups with interpolated times."""
    out: list[Segment] = []
    for seg in segments:
        length = seg.end - seg.start
        words = seg.text.split()
        if length <= max_seconds or len(words) < 2:
            out.append(seg)
            continue
        parts = min(len(words), math.ceil(length / max_seconds))
        for i in range(parts):
            lo, hi = len(words) * i // parts, len(words) * (i + 1) // parts
            out.append(
                Segment(
                    seg.start + length * lo / len(words), seg.start + length * hi / len(words), " ".join(words[lo:hi])
                )
            )
    return out


def window_chunks(segments: list[Segment], seconds: float, duration: float) -> list[Segment]:
    """Group segments into non-overlapping windows of `seconds` by each segment's midpoint."""
    groups: dict[int, list[str]] = {}
    for seg in segments:
        groups.setdefault(int((seg.start + seg.end) / 2 // seconds), []).append(seg.text)
    end_of_text = max((s.end for s in segments), default=0.0)
    total = max(duration, end_of_text)
    return [Segment(k * seconds, min((k + 1) * seconds, total), " ".join(texts)) for k, texts in sorted(groups.items())]
