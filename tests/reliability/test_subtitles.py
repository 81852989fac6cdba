"""Subtitle files are untrusted: read_subtitles keeps sane, bounded cues and says what it changed."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from videorag.errors import ConfigError, MediaError
from videorag.ingest.subtitles import SubtitleLimits, find_sidecar, parse_subtitles, read_subtitles
from videorag.types import Segment


def clock(seconds: float) -> str:
    ms = round(seconds * 1000)
    return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"


def srt(tmp_path: Path, *cues: tuple[str, str, str]) -> Path:
    """An .srt file of (start, end, text) cues, times given as written in the file."""
    path = tmp_path / "clip.srt"
    path.write_text("\n".join(f"{i}\n{a} --> {b}\n{text}\n" for i, (a, b, text) in enumerate(cues, 1)))
    return path


def timed(*cues: tuple[float, float, str]) -> list[tuple[str, str, str]]:
    return [(clock(a), clock(b), text) for a, b, text in cues]


def test_valid_cues_pass_unchanged_without_warnings(tmp_path):
    path = srt(tmp_path, *timed((1, 2, "<i>one</i>"), (3, 4.5, "two &amp; three")))
    assert read_subtitles(path, 15.0) == ([Segment(1, 2, "one"), Segment(3, 4.5, "two & three")], [])


def test_end_before_start_and_zero_length_cues_are_dropped(tmp_path):
    path = srt(tmp_path, *timed((10, 5, "backwards"), (6, 6, "no length"), (1, 2, "kept")))
    segments, warnings = read_subtitles(path, 15.0)
    assert segments == [Segment(1, 2, "kept")]
    assert warnings == ["subtitles: dropped 2 cues whose end is not after their start"]


def test_negative_garbled_and_huge_times_are_dropped(tmp_path):
    path = srt(tmp_path, ("-00:00:01,000", "00:00:02,000", "negative"),
               ("00:00:01,000", "-00:00:03,000", "negative end"),
               ("99999999999999:00:00,000", "99999999999999:00:01,000", "huge hours"),
               ("00:0x:01,000", "00:00:02,000", "garbled"),
               ("00:00:01,000", "00:00:02,000", "kept"))
    for duration in (15.0, 0.0):
        segments, warnings = read_subtitles(path, duration)
        assert segments == [Segment(1, 2, "kept")]
        assert warnings == ["subtitles: dropped 4 cues with unreadable or negative times"]


def test_cues_past_the_video_are_dropped_or_clamped(tmp_path):
    path = srt(tmp_path, *timed((14, 20, "clamped"), (15, 16, "at the end"), (400, 401, "far past"),
                                (1, 2, "kept")))
    segments, warnings = read_subtitles(path, 15.0)
    assert segments == [Segment(1, 2, "kept"), Segment(14, 15.0, "clamped")]
    assert warnings == ["subtitles: dropped 2 cues starting at or after the video's end (15.0 s)",
                        "subtitles: clamped 1 cue to the video's end (15.0 s)"]


@pytest.mark.parametrize("duration", [0.0, -1.0, float("nan")])
def test_unknown_duration_skips_only_the_duration_checks(tmp_path, duration):
    path = srt(tmp_path, *timed((400, 401, "late"), (3, 1, "backwards")))
    segments, warnings = read_subtitles(path, duration)
    assert segments == [Segment(400, 401, "late")]
    assert warnings == ["subtitles: dropped 1 cue whose end is not after their start"]


def test_output_is_sorted_by_start(tmp_path):
    path = tmp_path / "clip.vtt"
    path.write_text("WEBVTT\n\nNOTE a comment\n\n00:05.000 --> 00:06.000\nlater\n\n"
                    "00:01.000 --> 00:02.000 align:start\nearlier\n")
    assert read_subtitles(path, 10.0)[0] == [Segment(1, 2, "earlier"), Segment(5, 6, "later")]


def test_cues_without_blank_lines_between_are_split(tmp_path):
    path = tmp_path / "clip.srt"
    path.write_text("1\n00:00:01,000 --> 00:00:02,000\nfirst\n2\n00:00:03,000 --> 00:00:04,000\nsecond\n")
    assert read_subtitles(path, 10.0)[0] == [Segment(1, 2, "first"), Segment(3, 4, "second")]


def test_a_100k_word_cue_is_truncated(tmp_path):
    path = srt(tmp_path, *timed((1, 5, " ".join(f"w{i}" for i in range(100_000)))))
    segments, warnings = read_subtitles(path, 15.0)
    assert segments == [Segment(1, 5, " ".join(f"w{i}" for i in range(200)))]
    assert warnings == ["subtitles: truncated 1 cue to 200 words of at most 100 characters"]


def test_a_huge_word_or_unclosed_tag_is_cut(tmp_path):
    path = srt(tmp_path, *timed((1, 2, "ok <" + "x" * 10**6), (3, 4, "fine {\\an8}line")))
    segments, warnings = read_subtitles(path, 15.0)
    assert segments == [Segment(1, 2, "ok <" + "x" * 99), Segment(3, 4, "fine line")]
    assert warnings == ["subtitles: truncated 1 cue to 200 words of at most 100 characters"]


def test_20000_cues_on_a_15s_video_are_merged_without_losing_words(tmp_path):
    cues = [((i % 14_000) / 1000, (i % 14_000) / 1000 + 0.5, f"w{i}") for i in range(20_000)]
    segments, warnings = read_subtitles(srt(tmp_path, *timed(*cues)), 15.0)
    assert len(segments) <= SubtitleLimits().cue_cap(15.0) == 100
    assert sorted(w for s in segments for w in s.text.split()) == sorted(f"w{i}" for i in range(20_000))
    assert all(len(s.text.split()) <= 200 and 0 <= s.start < s.end <= 15.0 for s in segments)
    assert segments == sorted(segments, key=lambda s: s.start)
    assert len(warnings) == 1 and warnings[0].startswith("subtitles: merged 20000 cues into ")


def test_merging_past_the_word_budget_says_how_many_words_were_lost(tmp_path):
    path = srt(tmp_path, *timed(*[(i, i + 1, "a b c") for i in range(10)]))
    limits = SubtitleLimits(max_words_per_cue=4, max_cues_per_second=0.1, min_cue_cap=2)
    segments, warnings = read_subtitles(path, 12.0, limits)
    assert [len(s.text.split()) for s in segments] == [4, 4]
    assert (segments[0].start, segments[0].end, segments[1].end) == (0, 5, 10)
    assert warnings[-1] == "subtitles: dropped 22 words over 4 per merged cue"


def test_too_large_a_file_is_refused_with_a_hint(tmp_path):
    path = srt(tmp_path, *timed((1, 2, "x" * 2000)))
    with pytest.raises(MediaError, match="larger than .* MiB.*trim"):
        read_subtitles(path, 15.0, SubtitleLimits(max_file_bytes=1000))


def test_nothing_valid_left_is_an_error_saying_why(tmp_path):
    path = srt(tmp_path, *timed((20, 21, "late")))
    with pytest.raises(MediaError, match="no subtitle cues found; dropped 1 cue starting at or after"):
        read_subtitles(path, 15.0)


def test_limits_are_validated():
    with pytest.raises(ConfigError, match="`max_words_per_cue` must be > 0, got 0"):
        SubtitleLimits(max_words_per_cue=0)


def test_parse_subtitles_is_read_subtitles_without_a_duration(tmp_path):
    path = srt(tmp_path, *timed((400, 401, "late"), (1, 2, "early")))
    assert parse_subtitles(path) == read_subtitles(path, 0.0)[0] == [Segment(1, 2, "early"),
                                                                     Segment(400, 401, "late")]


def test_sidecar_lookup_with_a_too_long_file_name_finds_nothing(tmp_path):
    video = tmp_path / ("v" * 251 + ".mp4")      # 255 bytes: the longest name most file systems allow
    assert find_sidecar(video) is None
    short = tmp_path / ("s" * 245 + ".mp4")       # .srt still fits, .en.srt does not
    (tmp_path / ("s" * 245 + ".srt")).write_text("")
    assert find_sidecar(short) == tmp_path / ("s" * 245 + ".srt")


# Random SRT-ish text: cues with good, huge, negative and garbled times, random text, blank lines.
_times = st.one_of(
    st.floats(0, 30).map(clock),
    st.integers(0, 10**20).map(lambda h: f"{h}:00:00,000"),
    st.floats(0, 30).map(lambda t: "-" + clock(t)),
    st.text(alphabet="0123456789:,.-", max_size=16),
)
_good_pair = st.tuples(st.floats(0, 30), st.floats(0.001, 10)).map(lambda p: (clock(p[0]), clock(sum(p))))
_timing = st.one_of(_good_pair, _good_pair, st.tuples(_times, _times))   # most files keep some cues
_cue = st.tuples(st.one_of(st.just(""), st.integers(-5, 10**6).map(str)), _timing,
                 st.lists(st.text(max_size=40), min_size=1, max_size=4), st.integers(0, 3))
_srt = st.lists(_cue, max_size=30).map(lambda cues: "".join(
    f"{n}\n{a} --> {b}\n" + "\n".join(lines) + "\n" * (blanks + 1) for n, (a, b), lines, blanks in cues))
_files = st.one_of(_srt, _srt, _srt, st.text(max_size=300))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_files, duration=st.one_of(st.floats(-5, 40), st.just(float("nan"))),
       max_words=st.integers(1, 6), min_cues=st.integers(1, 5), rate=st.floats(0.01, 2))
def test_random_files_give_valid_cues_or_media_error(tmp_path, text, duration, max_words, min_cues, rate):
    path = tmp_path / "random.srt"
    path.write_text(text, encoding="utf-8", newline="")
    limits = SubtitleLimits(max_words_per_cue=max_words, min_cue_cap=min_cues, max_cues_per_second=rate)
    try:
        segments, warnings = read_subtitles(path, duration, limits)
    except MediaError as error:   # only for a file without one usable cue (small files, readable)
        assert "no subtitle cues found" in str(error)
        return
    _check_invariants(segments, warnings, duration, limits)


def _check_invariants(segments, warnings, duration, limits) -> None:
    known = duration > 0
    assert segments and len(segments) <= limits.cue_cap(duration if known else max(s.end for s in segments))
    assert all(0 <= s.start < s.end and (not known or s.end <= duration) for s in segments)
    assert all(1 <= len(s.text.split()) <= limits.max_words_per_cue for s in segments)
    assert all(len(w) <= limits.max_word_chars for s in segments for w in s.text.split())
    assert [s.start for s in segments] == sorted(s.start for s in segments)
    assert all("\n" not in w and w.startswith("subtitles: ") for w in warnings)


# A file with one certainly usable cue among random ones: readable times, start before the video's
# end (when the duration is known), words of letters; wherever it sits in the file, it must parse.
_anchor = st.tuples(st.integers(0, 30_000), st.integers(1, 10_000),
                    st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8),
                             min_size=1, max_size=5))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(noise=st.lists(_cue, max_size=20), anchor=_anchor, where=st.integers(0, 20), data=st.data(),
       max_words=st.integers(1, 6), min_cues=st.integers(1, 5), rate=st.floats(0.01, 2))
def test_a_file_with_a_valid_cue_always_parses(tmp_path, noise, anchor, where, data, max_words, min_cues, rate):
    start_ms, length_ms, words = anchor
    start = start_ms / 1000
    duration = data.draw(st.one_of(st.just(float("nan")), st.floats(-5, 0),
                                   st.floats(start + 0.001, start + 40)), label="duration")
    cue = ("1", (clock(start), clock(start + length_ms / 1000)), [" ".join(words)], 1)
    cues = noise[:where] + [cue] + noise[where:]
    text = "".join(f"{n}\n{a} --> {b}\n" + "\n".join(lines) + "\n" * (blanks + 1)
                   for n, (a, b), lines, blanks in cues)
    path = tmp_path / "valid.srt"
    path.write_text(text, encoding="utf-8", newline="")
    limits = SubtitleLimits(max_words_per_cue=max_words, min_cue_cap=min_cues, max_cues_per_second=rate)
    segments, warnings = read_subtitles(path, duration, limits)   # never MediaError: one cue is usable
    _check_invariants(segments, warnings, duration, limits)
    said = {w for s in segments for w in s.text.split()}
    if not any("words" in w for w in warnings):   # nothing truncated or dropped: the cue's words are there
        assert set(words) <= said, (words, segments, warnings)

