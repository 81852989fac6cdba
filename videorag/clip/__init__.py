"""Clips: a span of an indexed video cut out as an MP4 (H.264 video, AAC audio), re-encoded so it
starts and ends within a frame of what was asked (a stream copy can only cut at keyframes).

`span(start, end, duration)` checks a request in words before anything is read or written;
`cut(source, start, end, out)` writes the clip to `out` through a temporary file beside it (renamed
when complete, removed on failure), refusing an existing `out` unless `force`.
"""

from .encode import cut
from .span import MAX_SECONDS, ClipError, seconds, span

__all__ = ["MAX_SECONDS", "ClipError", "cut", "seconds", "span"]
