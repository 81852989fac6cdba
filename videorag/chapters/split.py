"""Where a video's topics change: TextTiling (Hearst 1997) over its segments' vectors.

At each pause between two segments, the speech of the few seconds before it is compared with the
speech after it (cosine of the duration-weighted mean vectors), over windows of 20, 30 and 45 s
averaged (one width alone moves boundaries by a sentence or two either way). A topic change is a
valley of that similarity; its depth is how far the similarity climbs back on both sides. The
deepest valleys become boundaries as long as every chapter keeps at least `min_seconds` (a share
of the video's length): a short stretch of chatter between two topics then joins one of them
instead of becoming a chapter of its own. A first chapter that is about all the others (a spoken
table of contents) joins the next. Measured in results/chapters/.
"""

from __future__ import annotations

import numpy as np

from ..types import Segment

WINDOWS = (20.0, 30.0, 45.0)  # seconds of speech compared on each side of a pause
SHORTEST = 30.0  # no chapter is shorter, whatever the video's length
SHARE = 1 / 15  # nor shorter than this share of the video (a 10-minute video: 40 s)
DEPTH = 0.0  # a valley deeper than the mean depth plus this many standard deviations can be a boundary
MIN_DEPTH = 0.1  # and deeper than this (a video about one thing has only shallow valleys)


def min_seconds(duration: float) -> float:
    return max(SHORTEST, SHARE * duration)


def boundaries(segments: list[Segment], vectors: np.ndarray, duration: float) -> list[float]:
    """The times where a chapter starts (0.0 first) in a video of `duration` seconds."""
    if len(segments) < 3 or duration < 2 * min_seconds(duration):
        return [0.0]
    gaps = np.array([s.start for s in segments[1:]])
    weights = np.array([max(s.end - s.start, 0.1) for s in segments])
    middles = np.array([(s.start + s.end) / 2 for s in segments])
    weighted = vectors * weights[:, None]
    sims = np.mean([_similarities(middles, weighted, gaps, w) for w in WINDOWS], axis=0)
    depth = _depths(sims)
    chosen = _deepest(gaps, depth, duration)
    starts = [0.0, *sorted(chosen)]
    if len(starts) > 2 and _about_the_others(starts, duration, middles, weighted):
        del starts[1]
    return starts


def _deepest(gaps: np.ndarray, depth: np.ndarray, duration: float) -> list[float]:
    """The gaps taken deepest first, each at least `min_seconds` from the others and the ends."""
    shortest = min_seconds(duration)
    threshold = max(depth.mean() + DEPTH * depth.std(), MIN_DEPTH)
    chosen: list[float] = []
    for i in np.argsort(-depth, kind="stable"):
        if depth[i] <= threshold:
            break
        t = float(gaps[i])
        if all(abs(t - edge) >= shortest for edge in [0.0, duration, *chosen]):
            chosen.append(t)
    return chosen


def _about_the_others(starts: list[float], duration: float, middles: np.ndarray, weighted: np.ndarray) -> bool:
    """Whether the first chapter is closer, on average, to the other chapters than they are to
    each other: an introduction that lists the topics, not a topic."""
    ends = [*starts[1:], duration]
    centres = []
    for a, b in zip(starts, ends, strict=True):
        total = weighted[(middles >= a) & (middles < b)].sum(axis=0)
        centres.append(total / max(float(np.linalg.norm(total)), 1e-12))
    sims = np.array(centres) @ np.array(centres).T
    others = sims[1:, 1:][~np.eye(len(centres) - 1, dtype=bool)]
    return len(others) > 0 and float(sims[0, 1:].mean()) > float(others.mean())


def _similarities(middles: np.ndarray, weighted: np.ndarray, gaps: np.ndarray, window: float) -> np.ndarray:
    """Cosine between the speech of the `window` seconds before each gap and after it."""
    sims = np.zeros(len(gaps))
    for i, t in enumerate(gaps):
        a = weighted[(middles < t) & (middles >= t - window)].sum(axis=0)
        b = weighted[(middles >= t) & (middles < t + window)].sum(axis=0)
        sims[i] = float(a @ b) / max(float(np.linalg.norm(a) * np.linalg.norm(b)), 1e-12)
    return sims


def _depths(sims: np.ndarray) -> np.ndarray:
    """Each gap's valley depth: how far the similarity climbs to its nearest peak on the left,
    plus on the right (0 where the gap is not a valley)."""
    depth = np.zeros(len(sims))
    for i, s in enumerate(sims):
        if (i and sims[i - 1] < s) or (i + 1 < len(sims) and sims[i + 1] < s):
            continue
        depth[i] = _climb(sims[i::-1]) + _climb(sims[i:]) - 2 * s
    return depth


def _climb(values: np.ndarray) -> float:
    """The first peak reached walking from values[0] while the values do not fall."""
    top = values[0]
    for v in values[1:]:
        if v < top:
            break
        top = v
    return float(top)
