"""Sidecar subtitles (.srt / .vtt beside the video) parsed into Segments."""
from __future__ import annotations

import html
import re
from pathlib import Path

from ..errors import MediaError
from ..types import Segment

SIDECAR_SUFFIXES = (".srt", ".vtt", ".en.srt", ".en.vtt")
_TIME = re.compile(r"(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})")
_TAG = re.compile(r"<[^>]+>|\{\\[^}]*\}")


def find_sidecar(video: Path) -> Path | None:
    for suffix in SIDECAR_SUFFIXES:
        candidate = video.with_name(video.stem + suffix)
        if candidate.is_file():
            return candidate
    return None


def _seconds(match: re.Match) -> float:
    hours, minutes, seconds, millis = match.groups()
    return int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds) + int(millis.ljust(3, "0")) / 1000


def parse_subtitles(path: Path) -> list[Segment]:
    """Parse an SRT or WebVTT file. Cue order is kept; tags and cue numbers are dropped."""
    try:
        raw = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise MediaError(f"{path}: subtitles cannot be read ({exc})", "check file permissions") from exc
    segments = []
    for block in re.split(r"\n\s*\n", raw.replace("\r\n", "\n")):
        lines = [line for line in block.strip().split("\n") if line.strip()]
        timing = next((i for i, line in enumerate(lines) if "-->" in line), None)
        if timing is None:
            continue
        times = list(_TIME.finditer(lines[timing]))
        if len(times) < 2:
            continue
        text = " ".join(_TAG.sub("", html.unescape(line)).strip() for line in lines[timing + 1:])
        if text.strip():
            segments.append(Segment(_seconds(times[0]), _seconds(times[1]), " ".join(text.split())))
    if not segments:
        raise MediaError(f"{path}: no subtitle cues found", "check that it is a valid .srt or .vtt file")
    return segments
