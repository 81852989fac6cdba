from pathlib import Path

import pytest

from videorag.errors import MediaError
from videorag.embed import split_words
from videorag.ingest.chunking import bound_segments, window_chunks
from videorag.ingest.subtitles import find_sidecar, parse_subtitles
from videorag.types import Segment

SRT = """1
00:00:01,000 --> 00:00:03,500
<i>Hello</i> there

2
00:00:04,000 --> 00:00:06,250
second line
continues
"""

VTT = """WEBVTT

00:01.000 --> 00:02.000 align:start
first &amp; cue

1:02:03.500 --> 1:02:05.000
late cue
"""


def test_parse_srt(tmp_path: Path):
    path = tmp_path / "v.srt"
    path.write_text(SRT)
    assert parse_subtitles(path) == [Segment(1.0, 3.5, "Hello there"),
                                     Segment(4.0, 6.25, "second line continues")]


def test_parse_vtt_hours_and_entities(tmp_path: Path):
    path = tmp_path / "v.vtt"
    path.write_text(VTT)
    assert parse_subtitles(path) == [Segment(1.0, 2.0, "first & cue"), Segment(3723.5, 3725.0, "late cue")]


def test_empty_subtitles_are_an_error(tmp_path: Path):
    path = tmp_path / "v.srt"
    path.write_text("nothing here")
    with pytest.raises(MediaError, match="no subtitle cues"):
        parse_subtitles(path)


def test_find_sidecar(tmp_path: Path):
    video = tmp_path / "clip.mkv"
    assert find_sidecar(video) is None
    (tmp_path / "clip.en.vtt").write_text(VTT)
    assert find_sidecar(video) == tmp_path / "clip.en.vtt"
    (tmp_path / "clip.srt").write_text(SRT)
    assert find_sidecar(video) == tmp_path / "clip.srt"


def test_bound_segments_splits_long_ones_by_words():
    long = Segment(10.0, 40.0, " ".join(f"w{i}" for i in range(30)))
    parts = bound_segments([Segment(0, 5, "short one"), long], max_seconds=15)
    assert parts[0] == Segment(0, 5, "short one")
    assert [(p.start, p.end) for p in parts[1:]] == [(10.0, 25.0), (25.0, 40.0)]
    assert " ".join(p.text for p in parts[1:]) == long.text


def test_window_chunks_group_by_midpoint():
    segs = [Segment(0, 10, "a"), Segment(115, 130, "b"), Segment(130, 140, "c"), Segment(250, 260, "d")]
    chunks = window_chunks(segs, 120, duration=300)
    assert chunks == [Segment(0, 120, "a"), Segment(120, 240, "b c"), Segment(240, 300, "d")]


def test_split_words():
    assert split_words("a b c d e", 2) == ["a b", "c d", "e"]
    assert split_words("", 3) == [""]


def test_chunk_vectors_are_means_of_their_segments():
    import numpy as np

    from videorag.ingest.pipeline import chunk_vectors

    segs = [Segment(0, 10, "a"), Segment(100, 130, "b"), Segment(130, 140, "c")]
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]], np.float32)
    chunks = window_chunks(segs, 120, duration=150)
    out = chunk_vectors(segs, vectors, chunks, 120)
    assert np.allclose(out, [[np.sqrt(0.5), np.sqrt(0.5)], [0.0, 1.0]])


def test_a_segment_is_embedded_with_its_neighbours():
    from videorag.ingest.pipeline import context_texts

    segs = [Segment(0, 4, "wipe the outside"), Segment(4, 6, "with a rag."), Segment(6, 9, "done")]
    assert context_texts(segs, 0) == ["wipe the outside", "with a rag.", "done"]
    assert context_texts(segs, 1) == ["wipe the outside with a rag.", "wipe the outside with a rag. done",
                                      "with a rag. done"]
    assert context_texts(segs[:1], 2) == ["wipe the outside"]
