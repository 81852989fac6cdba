"""Clips (`videorag.clip`, `videorag clip`): a span cut out to within half a second, audio kept,
from five kinds of video; bad requests answered in words with nothing written."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest

from videorag.cli import EXIT_ERROR, EXIT_OK, main
from videorag.clip import MAX_SECONDS, ClipError, cut, seconds, span

RATE = 48000


def made(path: Path, video: str, audio: str, size=(64, 48), length: float = 6.0, vfr: bool = False) -> Path:
    """A video of noise frames (10 fps, or 5 and 20 fps by turns with `vfr`) and a 440 Hz tone."""
    rng = np.random.default_rng(0)
    times, t = [], 0.0
    while t < length:
        times.append(t)
        t += (0.05 if int(t) % 2 else 0.2) if vfr else 0.1
    with av.open(str(path), "w") as out:
        v = out.add_stream(video, rate=10)
        v.width, v.height, v.pix_fmt = size[0], size[1], "yuv420p"
        v.time_base = v.codec_context.time_base = Fraction(1, 1000)
        a = out.add_stream(audio, rate=RATE)
        a.layout = "mono"
        for t in times:
            frame = av.VideoFrame.from_ndarray(rng.integers(0, 255, (size[1], size[0], 3), dtype=np.uint8), "rgb24")
            frame.pts, frame.time_base = round(t * 1000), Fraction(1, 1000)
            out.mux(v.encode(frame))
        out.mux(v.encode())
        tone = (0.2 * np.sin(2 * np.pi * 440 * np.arange(int(length * RATE)) / RATE)).astype(np.float32)
        whole = av.AudioFrame.from_ndarray(tone.reshape(1, -1), format="flt", layout="mono")
        whole.sample_rate = RATE
        fifo, n = av.AudioFifo(), 0
        for chunk in av.AudioResampler(format=a.format.name, layout="mono", rate=RATE).resample(whole):
            fifo.write(chunk)
        while fifo.samples:
            chunk = fifo.read(a.codec_context.frame_size or 960) or fifo.read()
            chunk.pts, chunk.time_base = n, Fraction(1, RATE)
            n += chunk.samples
            out.mux(a.encode(chunk))
        out.mux(a.encode())
    return path


KINDS = {
    "mp4 h264": ("a.mp4", "libx264", "aac", {}),
    "webm vp9": ("b.webm", "libvpx-vp9", "libopus", {}),
    "mkv": ("c.mkv", "libx264", "libopus", {}),
    "variable frame rate": ("d.mp4", "libx264", "aac", {"vfr": True}),
    "odd resolution": ("e.webm", "libvpx-vp9", "libopus", {"size": (65, 49)}),
}


@pytest.mark.parametrize("kind", KINDS)
def test_a_clip_is_the_span_asked_with_its_audio(tmp_path, kind):
    name, video, audio, options = KINDS[kind]
    source = made(tmp_path / name, video, audio, **options)
    out = cut(source, 1.3, 4.1, tmp_path / "clip.mp4")
    with av.open(str(out)) as clip:
        assert abs(clip.duration / 1e6 - 2.8) <= 0.5
        assert [s.type for s in clip.streams] == ["video", "audio"]
        width, height = clip.streams.video[0].codec_context.width, clip.streams.video[0].codec_context.height
        shown = [f.time for f in clip.decode(video=0)]
    with av.open(str(out)) as clip:
        heard = sum(f.samples for f in clip.decode(audio=0)) / RATE
    assert shown[0] < 0.25 and abs(shown[-1] - 2.8) <= 0.5
    assert abs(heard - 2.8) <= 0.5
    assert (width, height) == (64, 48)   # an odd size rounded down to even (yuv420p)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, "clip.mp4"])   # nothing else written


def test_times_read_as_seconds_or_minutes():
    assert seconds("75") == 75 and seconds("1:15") == 75 and seconds("1:02:03.5") == 3723.5 and seconds(2.5) == 2.5
    with pytest.raises(ClipError, match="not a time"):
        seconds("1:xx")


@pytest.mark.parametrize(
    ("start", "end", "words"),
    [("-1", "5", "before 0:00"), ("20", "12", "before it starts"), ("20", "45", "past its end"),
     ("31", "32", "past its end"), ("0", str(MAX_SECONDS + 1), "longer than")],
)
def test_a_bad_span_is_refused_in_words(start, end, words):
    with pytest.raises(ClipError, match=words):
        span(start, end, duration=30.0 if words != "longer than" else 2 * MAX_SECONDS)


def test_an_end_a_little_past_the_duration_is_the_end():
    assert span("25", "30.3", 30.1) == (25.0, 30.1)


def test_an_existing_output_is_kept_unless_forced(tmp_path):
    source = made(tmp_path / "a.mp4", "libx264", "aac", length=3.0)
    out = tmp_path / "clip.mp4"
    out.write_bytes(b"mine")
    with pytest.raises(ClipError, match="exists"):
        cut(source, 0, 1, out)
    assert out.read_bytes() == b"mine"
    cut(source, 0, 1, out, force=True)
    assert out.stat().st_size > 4
    with pytest.raises(ClipError, match=".mp4"):
        cut(source, 0, 1, tmp_path / "clip.mov")
    with pytest.raises(ClipError, match="does not exist"):
        cut(source, 0, 1, tmp_path / "nowhere" / "clip.mp4")


def test_videorag_clip_cuts_an_indexed_video_by_path_or_id(demo_rag, tmp_path, capsys):
    row = demo_rag.library.index.videos(["video_id", "path"]).to_pylist()[0]
    index = str(demo_rag.location)
    assert main(["clip", row["path"], "0:02", "5.5", "-o", str(tmp_path / "a.mp4"), "--index", index]) == EXIT_OK
    assert main(["clip", row["video_id"], "1", "2", "-o", str(tmp_path / "b.mp4"), "--index", index]) == EXIT_OK
    with av.open(str(tmp_path / "a.mp4")) as clip:
        assert abs(clip.duration / 1e6 - 3.5) <= 0.5
    assert main(["clip", "no-such-video", "1", "2", "-o", str(tmp_path / "c.mp4"), "--index", index]) == EXIT_ERROR
    assert main(["clip", row["video_id"], "1", "2", "-o", str(tmp_path / "a.mp4"), "--index", index]) == EXIT_ERROR
    err = capsys.readouterr().err
    assert "no indexed video is 'no-such-video'" in err and "--force" in err
    assert not (tmp_path / "c.mp4").exists()


def test_a_silent_video_gives_a_silent_clip(tmp_path):
    from tests.reliability.media import tiny_video

    source = tiny_video(tmp_path / "silent.mp4", seconds=6, srt=False)
    with av.open(str(cut(source, 1, 3.5, tmp_path / "clip.mp4"))) as clip:
        assert [s.type for s in clip.streams] == ["video"] and abs(clip.duration / 1e6 - 2.5) <= 0.5


def test_a_video_is_named_by_id_path_or_a_file_name_only_one_indexed_video_has():
    from types import SimpleNamespace

    from videorag.cli.commands import _video
    from videorag.errors import IndexError_

    rows = [{"video_id": "a1", "path": "/talks/intro.mp4", "duration": 9.0},
            {"video_id": "b2", "path": "/clips/intro.mp4", "duration": 5.0},
            {"video_id": "c3", "path": "/clips/tire.mp4", "duration": 7.0}]
    table = SimpleNamespace(to_pylist=lambda: rows)
    rag = SimpleNamespace(library=SimpleNamespace(index=SimpleNamespace(videos=lambda columns: table)))
    assert _video(rag, "tire.mp4")["video_id"] == "c3" and _video(rag, "b2")["path"] == "/clips/intro.mp4"
    assert _video(rag, "/talks/intro.mp4")["video_id"] == "a1"
    with pytest.raises(IndexError_, match=r"2 indexed videos are named 'intro.mp4' \(/talks/intro.mp4, /clips/intro"):
        _video(rag, "intro.mp4")
