"""Text units of a video: bounded segments (with their English translation, for speech in another
language), fixed-window chunks, and model-sized pieces."""

from __future__ import annotations

import math
from dataclasses import replace

from ..languages import IN_ENGLISH
from ..types import Segment, Word


def bound_segments(segments: list[Segment], max_seconds: float) -> list[Segment]:
    """Split segments longer than `max_seconds` into word groups: at the words' own times when
    the segment has them, else at times interpolated by word count."""
    out: list[Segment] = []
    for seg in segments:
        length = seg.end - seg.start
        words = seg.text.split()
        if length <= max_seconds or len(words) < 2:
            out.append(seg)
        elif seg.words:
            out += _timed_groups(seg.words, max_seconds)
        else:
            parts = min(len(words), math.ceil(length / max_seconds))
            for i in range(parts):
                lo, hi = len(words) * i // parts, len(words) * (i + 1) // parts
                out.append(
                    Segment(
                        seg.start + length * lo / len(words),
                        seg.start + length * hi / len(words),
                        " ".join(words[lo:hi]),
                    )
                )
    return out


def _timed_groups(words: tuple[Word, ...], max_seconds: float) -> list[Segment]:
    """Runs of words about equally long, each under `max_seconds` where its words allow."""
    length = words[-1].end - words[0].start
    parts = min(len(words), math.ceil(length / max_seconds))
    groups: list[list[Word]] = [[] for _ in range(parts)]
    for w in words:
        groups[min(parts - 1, int((w.start - words[0].start) / length * parts))].append(w)
    return [Segment(g[0].start, g[-1].end, " ".join(w.text for w in g), tuple(g)) for g in groups if g]


def window_chunks(segments: list[Segment], seconds: float, duration: float) -> list[Segment]:
    """Group segments into non-overlapping windows of `seconds` by each segment's midpoint."""
    groups: dict[int, list[str]] = {}
    for seg in segments:
        groups.setdefault(int((seg.start + seg.end) / 2 // seconds), []).append(seg.text)
    end_of_text = max((s.end for s in segments), default=0.0)
    total = max(duration, end_of_text)
    return [Segment(k * seconds, min((k + 1) * seconds, total), " ".join(texts)) for k, texts in sorted(groups.items())]


def with_translation(segments: list[Segment], english: list[Segment]) -> list[Segment]:
    """Each segment's text followed by what it says in English, "… (in English: …)": the English
    pieces whose middle falls inside it (else in the nearest segment). Speech in another language
    is then found by English questions too (BM25 and the multilingual embedder read both)."""
    if not english or not segments:
        return segments
    said: list[list[str]] = [[] for _ in segments]
    for piece in english:
        middle = (piece.start + piece.end) / 2
        nearest = min(range(len(segments)), key=lambda i: _distance(segments[i], middle))
        said[nearest].append(piece.text)
    return [
        replace(s, text=f"{s.text} {IN_ENGLISH}{' '.join(t)})") if t else s for s, t in zip(segments, said, strict=True)
    ]


def _distance(segment: Segment, t: float) -> float:
    return 0.0 if segment.start <= t < segment.end else min(abs(segment.start - t), abs(segment.end - t))
