"""Sidecar subtitles (.srt / .vtt beside the video) read into checked, bounded Segments.

A subtitle file is untrusted input: `read_subtitles` keeps only cues with sane times inside the
video, bounds the words per cue and the cues per second, and says in one-line warnings what it
dropped or changed. Parsing is linear in the file's size, and the file's size is capped.
"""

from __future__ import annotations

import html
import logging
import math
import re
from collections import Counter
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from ..errors import ConfigError, MediaError
from ..types import Segment

log = logging.getLogger(__name__)

SIDECAR_SUFFIXES = (".srt", ".vtt", ".en.srt", ".en.vtt")
# A time not glued to other digits or separators: [-][h:]mm:ss(,|.)ttt, at most 3 hour digits
# (bounded repeats keep the scan linear on garbled lines of digits).
_TIME = re.compile(r"(?<![\d:.,])(-?)(?:(\d{1,3}):)?(\d{1,2}):(\d{2})[.,](\d{1,3})")
_TAG = re.compile(r"<[^<>]*>|\{\\[^{}]*\}")  # no nesting: linear on unclosed tags
_WORD = re.compile(r"\S+")
_NOT_VALID = "check that it is a valid .srt or .vtt file"


@dataclass(frozen=True)
class SubtitleLimits:
    """Bounds on what one subtitle file may put into the index (see `read_subtitles`)."""

    max_words_per_cue: int = 200  # longer cues are truncated
    max_word_chars: int = 100  # longer "words" (junk, unclosed tags) are cut
    max_cues_per_second: float = 4.0  # over the video's duration; more cues are merged
    min_cue_cap: int = 100  # the cue cap never goes below this (very short videos)
    max_file_bytes: int = 20 * 2**20  # larger files are refused

    def __post_init__(self):
        for name in ("max_words_per_cue", "max_word_chars", "max_cues_per_second", "min_cue_cap", "max_file_bytes"):
            value = getattr(self, name)
            if not value > 0:
                raise ConfigError(f"`{name}` must be > 0, got {value!r}")

    def cue_cap(self, seconds: float) -> int:
        """The most cues kept for `seconds` of video."""
        return max(self.min_cue_cap, math.ceil(self.max_cues_per_second * max(seconds, 0.0)))


def find_sidecar(video: Path) -> Path | None:
    """The first subtitle file beside `video`; None when there is none or it cannot be looked up."""
    for suffix in SIDECAR_SUFFIXES:
        try:
            candidate = video.with_name(video.stem + suffix)
            if candidate.is_file():
                return candidate
        except (OSError, ValueError):  # e.g. the name gets too long for the file system
            continue
    return None


def parse_subtitles(path: Path) -> list[Segment]:
    """`read_subtitles` for a video of unknown duration, with its warnings logged."""
    segments, warnings = read_subtitles(path, 0.0)
    for warning in warnings:
        log.warning("%s: %s", path, warning)
    return segments


def read_subtitles(
    path: Path, duration: float, limits: SubtitleLimits = SubtitleLimits()
) -> tuple[list[Segment], list[str]]:
    """Read an SRT or WebVTT file into valid cues sorted by start, plus one-line warnings.

    Cues need readable times with 0 <= start < end; cues starting at or after `duration` are
    dropped and cues ending after it are clamped to it (no duration checks when `duration` <= 0).
    Tags, cue numbers and blank cues are dropped; cues over `limits.max_words_per_cue` words are
    truncated; when there are more cues than `limits.cue_cap(duration)`, neighbours are merged.
    Raises MediaError when the file is unreadable, too large, or has no valid cue.
    """
    tally: Counter[str] = Counter()
    cues = _fit_duration(list(_cues(_read(path, limits.max_file_bytes), limits, tally)), duration, tally)
    if not cues:
        dropped = "; ".join(_messages(tally, duration, limits))
        raise MediaError(f"{path}: no subtitle cues found" + (f"; {dropped}" if dropped else ""), _NOT_VALID)
    cues.sort(key=lambda c: (c.start, c.end))
    cap = limits.cue_cap(duration if _known(duration) else max(c.end for c in cues))
    if len(cues) > cap:
        tally["merged_from"], tally["cap"] = len(cues), cap
        cues, tally["lost_words"] = _merge(cues, cap, limits.max_words_per_cue)
        tally["merged_into"] = len(cues)
    return cues, [f"subtitles: {m}" for m in _messages(tally, duration, limits)]


def _known(duration: float) -> bool:
    return math.isfinite(duration) and duration > 0


def _read(path: Path, max_bytes: int) -> str:
    try:
        with path.open("rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as exc:
        raise MediaError(f"{path}: subtitles cannot be read ({exc})", "check file permissions") from exc
    if len(data) > max_bytes:
        raise MediaError(
            f"{path}: subtitle file is larger than {max_bytes / 2**20:g} MiB",
            "check that it belongs to this video, or trim it below the limit",
        )
    return data.decode("utf-8-sig", errors="replace")


def _blocks(raw: str):
    """(timing line, text lines) per cue. Cues are split at blank lines and at timing lines;
    a number line just before a timing line is taken as a cue number, not text."""
    block: list[str] = []
    for line in [*raw.splitlines(), ""]:
        if line.strip():
            block.append(line)
            continue
        timings = [i for i, text in enumerate(block) if "-->" in text]
        for k, i in enumerate(timings):
            stop = timings[k + 1] if k + 1 < len(timings) else len(block)
            if stop < len(block) and block[stop - 1].strip().isdigit():
                stop -= 1
            yield block[i], block[i + 1 : stop]
        block = []


def _cues(raw: str, limits: SubtitleLimits, tally: Counter):
    """The cues with valid times and some text; what is dropped or cut is counted in `tally`."""
    for timing, lines in _blocks(raw):
        found = [_seconds(m) for m in islice(_TIME.finditer(timing), 2)]
        if len(found) < 2 or min(found) < 0:
            tally["unreadable"] += 1
            continue
        start, end = found
        if not start < end:
            tally["order"] += 1
            continue
        text, cut = _text(lines, limits)
        if text:
            tally["truncated"] += cut
            yield Segment(start, end, text)


def _seconds(match: re.Match) -> float:
    sign, hours, minutes, seconds, millis = match.groups()
    value = int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds) + int(millis.ljust(3, "0")) / 1000
    return -value if sign else value


def _text(lines: list[str], limits: SubtitleLimits) -> tuple[str, bool]:
    """The cue's words without tags and whether any was cut; a huge cue is never split whole."""
    words: list[str] = []
    cut = False
    for line in lines:
        for match in _WORD.finditer(_TAG.sub("", html.unescape(line))):
            if len(words) == limits.max_words_per_cue:
                return " ".join(words), True
            word = match.group()
            cut |= len(word) > limits.max_word_chars
            words.append(word[: limits.max_word_chars])
    return " ".join(words), cut


def _fit_duration(cues: list[Segment], duration: float, tally: Counter) -> list[Segment]:
    if not _known(duration):
        return cues
    kept = []
    for cue in cues:
        if cue.start >= duration:
            tally["late"] += 1
        elif cue.end > duration:
            tally["clamped"] += 1
            kept.append(Segment(cue.start, duration, cue.text))
        else:
            kept.append(cue)
    return kept


def _merge(cues: list[Segment], cap: int, max_words: int) -> tuple[list[Segment], int]:
    """Join neighbouring (sorted) cues into at most `cap`, returning them and the words lost.

    Groups are filled up to `max_words`, so no word is lost unless the cues hold more than
    `cap * max_words` words; then equal runs of cues are joined and each is truncated."""
    size = math.ceil(len(cues) / cap)
    for per_group in (size, len(cues)):
        groups = _pack(cues, per_group, max_words)
        if len(groups) <= cap:
            return [_join(cues[a:b], max_words)[0] for a, b in groups], 0
    joined = [_join(cues[a : a + size], max_words) for a in range(0, len(cues), size)]
    return [cue for cue, _ in joined], sum(lost for _, lost in joined)


def _pack(cues: list[Segment], per_group: int, max_words: int) -> list[tuple[int, int]]:
    """(from, to) index runs of at most `per_group` cues and `max_words` words each."""
    groups, first, words = [], 0, 0
    for i, cue in enumerate(cues):
        count = cue.text.count(" ") + 1
        if i > first and (i - first == per_group or words + count > max_words):
            groups.append((first, i))
            first, words = i, 0
        words += count
    groups.append((first, len(cues)))
    return groups


def _join(run: list[Segment], max_words: int) -> tuple[Segment, int]:
    text = " ".join(c.text for c in run)
    lost = 0
    if text.count(" ") + 1 > max_words:
        words = text.split(" ")
        text, lost = " ".join(words[:max_words]), len(words) - max_words
    return Segment(run[0].start, max(c.end for c in run), text), lost


def _messages(tally: Counter, duration: float, limits: SubtitleLimits) -> list[str]:
    def cues(n: int) -> str:
        return f"{n} cue" + ("" if n == 1 else "s")

    templates = {
        "unreadable": "dropped {} with unreadable or negative times",
        "order": "dropped {} whose end is not after their start",
        "late": f"dropped {{}} starting at or after the video's end ({duration:.1f} s)",
        "clamped": f"clamped {{}} to the video's end ({duration:.1f} s)",
        "truncated": f"truncated {{}} to {limits.max_words_per_cue} words "
        f"of at most {limits.max_word_chars} characters",
    }
    out = [template.format(cues(tally[key])) for key, template in templates.items() if tally[key]]
    if tally["merged_from"]:
        out.append(
            f"merged {cues(tally['merged_from'])} into {tally['merged_into']} (cap {tally['cap']}: "
            f"{limits.max_cues_per_second:g} per second of video, at least {limits.min_cue_cap})"
        )
    if tally["lost_words"]:
        out.append(f"dropped {tally['lost_words']} words over {limits.max_words_per_cue} per merged cue")
    return out
