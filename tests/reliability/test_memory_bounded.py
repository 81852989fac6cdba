"""ASR memory stays bounded: audio goes to Whisper in windows cut at pauses (Reliability issue:
peak RSS of `videorag index` grew with the video's length)."""
from __future__ import annotations

import difflib
import re

import numpy as np
import pytest

from videorag.asr.audio import SAMPLE_RATE, audio_windows, quietest_cut


def test_cut_falls_in_the_pause():
    rng = np.random.default_rng(0)
    audio = rng.normal(0, 0.3, 10 * SAMPLE_RATE).astype(np.float32)
    audio[int(6.2 * SAMPLE_RATE):int(6.6 * SAMPLE_RATE)] *= 0.001  # a 0.4 s pause
    cut = quietest_cut(audio, 5 * SAMPLE_RATE, 8 * SAMPLE_RATE)
    assert 6.2 * SAMPLE_RATE < cut < 6.6 * SAMPLE_RATE
    assert quietest_cut(audio, 100, 200) == 200  # span shorter than the quiet stretch: no search


@pytest.mark.slow
def test_windows_cover_the_track_exactly(short_video):
    from faster_whisper.audio import decode_audio

    path, _ = short_video
    whole = decode_audio(str(path))
    windows = list(audio_windows(path, window=4.0))
    assert len(windows) > 2 and len(windows[-1][1]) <= 4 * SAMPLE_RATE
    assert all(2 * SAMPLE_RATE <= len(w) <= 4 * SAMPLE_RATE for _, w in windows[:-1])  # search: window / 2
    assert [s for s, _ in windows] == [sum(len(w) for _, w in windows[:i]) / SAMPLE_RATE
                                       for i in range(len(windows))]
    np.testing.assert_array_equal(np.concatenate([w for _, w in windows]), whole)
    [(start, one)] = list(audio_windows(path))  # shorter than a window: the whole track at once
    assert start == 0.0 and np.array_equal(one, whole)


def _words(segments) -> list[str]:
    return re.findall(r"[a-z0-9']+", " ".join(s.text for s in segments).lower())


@pytest.mark.slow
def test_small_windows_lose_and_repeat_no_words(asr, short_video):
    """4 s windows cut the 10 s narration mid-sentence four times. Whisper tiny hears the short
    pieces differently (a word replaced by another), but no stretch of speech may be lost or heard
    twice: at most one word more or less per cut."""
    from videorag.asr.faster_whisper import FasterWhisperASR

    path, _ = short_video
    cuts = len(list(audio_windows(path, window=4.0))) - 1
    whole = asr.transcribe(str(path))
    windowed = FasterWhisperASR(window_seconds=4.0).transcribe(str(path))
    assert all(a.start <= b.start for a, b in zip(windowed, windowed[1:]))
    reference, words = _words(whole), _words(windowed)
    ops = difflib.SequenceMatcher(a=reference, b=words, autojunk=False).get_opcodes()
    added_or_lost = sum(abs((i2 - i1) - (j2 - j1)) for _, i1, i2, j1, j2 in ops)
    same = sum(i2 - i1 for op, i1, i2, _, _ in ops if op == "equal")
    assert cuts >= 3 and added_or_lost <= cuts and same >= 0.6 * len(reference), (reference, words)
