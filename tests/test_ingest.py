"""Ingest on real media with the real default models (Whisper tiny.en, all-MiniLM-L6-v2)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import SHORT, copy
from videorag.demo.render import render
from videorag.embed.hashing import HashingEmbedder
from videorag.errors import IndexError_
from videorag.ingest.decode import probe, sample_frames

pytestmark = pytest.mark.slow


def test_asr_recovers_known_words(asr, short_video):
    path, spans = short_video
    segments = asr.transcribe(str(path))
    text = " ".join(s.text for s in segments).lower()
    for word in ("water", "kettle", "mug", "three minutes"):
        assert word in text
    assert segments[0].start < 1.0 and abs(segments[-1].end - spans[-1].end) < 2.0


def test_frames_sampled_at_one_per_second(short_video):
    path, spans = short_video
    frames = sample_frames(path, fps=1.0, max_side=200)
    duration = probe(path).duration
    assert abs(len(frames) - duration) <= 1.5
    assert all(b.t - a.t > 0.5 for a, b in zip(frames, frames[1:]))
    assert frames[0].jpeg[:2] == b"\xff\xd8"


def test_reindex_skips_and_moved_file_is_recognised(make_rag, short_video, tmp_path):
    path, _ = short_video
    first = copy(path, tmp_path / "a" / "tea.mp4")
    rag = make_rag()
    assert rag.add([tmp_path / "a"]).count("added") == 1
    again = rag.add([tmp_path / "a"])
    assert again.count("unchanged") == 1 and again.count("added") == 0
    units = rag.library.info()["units"]
    moved = tmp_path / "b" / "renamed-tea.mp4"
    moved.parent.mkdir()
    shutil.move(first, moved)
    report = rag.add([tmp_path / "b"])
    assert [f.status for f in report.files] == ["moved"]
    stats = rag.library.info()
    assert stats["videos"] == 1 and stats["units"] == units
    assert rag.search("tea bag")[0].path == str(moved.resolve())


def test_broken_files_are_reported_and_skipped(make_rag, short_video, tmp_path):
    good, _ = short_video
    folder = tmp_path / "mixed"
    copy(good, folder / "good.mp4")
    (folder / "empty.mp4").write_bytes(b"")
    (folder / "notes.mkv").write_text("this is not a video")
    data = good.read_bytes()
    (folder / "truncated.mp4").write_bytes(data[: len(data) // 2])
    render(SHORT, folder / "silent.mp4", audio=False)
    rag = make_rag()
    report = rag.add([folder, tmp_path / "does-not-exist"])
    status = {Path(f.path).name: f for f in report.files}
    assert status["good.mp4"].status == "added"
    assert report.partial
    expected = {"empty.mp4": "empty file", "notes.mkv": "not a video file (invalid data)",
                "truncated.mp4": "not a video file (invalid data)", "silent.mp4": "no audio track",
                "does-not-exist": "no such file"}
    for name, message in expected.items():
        assert status[name].status == "failed" and message in status[name].error, status[name]
        assert "\n" not in status[name].error
    assert rag.library.info()["videos"] == 1


def test_sidecar_subtitles_replace_asr(make_rag, tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    render(SHORT, folder / "quiet.webm", audio=False)
    (folder / "quiet.srt").write_text("1\n00:00:00,500 --> 00:00:02,000\nGrind the cardamom pods.\n")
    rag = make_rag()
    assert rag.add([folder]).count("added") == 1
    assert rag.library.index.videos(["source"])["source"].to_pylist() == ["subtitles"]
    hit = rag.search("crush cardamom")[0]
    assert (hit.start, hit.end) == (0.5, 2.0)


def test_interrupted_ingest_leaves_a_readable_index(make_rag, sample_dir, tmp_path, monkeypatch):
    folder, _ = sample_dir
    subset = [copy(p, tmp_path / "v" / p.name) for p in sorted(folder.glob("*.mp4"))[:2]]
    rag = make_rag()
    index = rag.add([subset[0]]) and rag.library.index
    real_write = index._tables["videos"].merge_insert  # the videos row: the last write of a video

    def crash(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(index._tables["videos"], "merge_insert", crash)
    with pytest.raises(KeyboardInterrupt):
        rag.add([tmp_path / "v"])
    monkeypatch.setattr(index._tables["videos"], "merge_insert", real_write)
    assert rag.library.info()["videos"] == 1
    assert {h.video_id for h in rag.search("anything at all", top_k=5)} == index.video_ids()
    report = rag.add([tmp_path / "v"])
    assert report.count("added") == 1 and report.count("unchanged") == 1
    assert index.remove_orphans() == 0 and rag.library.info()["videos"] == 2


def test_other_embedder_is_refused(make_rag, short_video, tmp_path):
    from videorag import VideoRAG

    rag = make_rag()
    rag.add([short_video[0]])
    with pytest.raises(IndexError_, match="all-MiniLM-L6-v2"):
        VideoRAG(rag.location.local, embedder=HashingEmbedder()).search("tea")


def test_remove_by_path(make_rag, short_video):
    rag = make_rag()
    rag.add([short_video[0]])
    ids = rag.library.index.video_ids()
    assert set(rag.library.remove([str(short_video[0])])) == ids and len(ids) == 1
    assert rag.library.info()["videos"] == 0
    assert rag.search("tea") == []


def test_whisper_threads_respect_an_openmp_thread_limit(monkeypatch):
    """OMP_THREAD_LIMIT=1 (a common Tesseract setting) with more CTranslate2 threads asked made
    Whisper return '!!!!' for every segment: the backend never asks above the limit."""
    import os

    from videorag.asr.faster_whisper import cpu_threads

    monkeypatch.setenv("OMP_THREAD_LIMIT", "1")
    assert cpu_threads() == 1
    monkeypatch.setenv("OMP_THREAD_LIMIT", "64")
    assert cpu_threads() == (os.cpu_count() or 1)
    monkeypatch.delenv("OMP_THREAD_LIMIT")
    assert cpu_threads() == (os.cpu_count() or 1)


def test_whisper_is_seeded_before_every_window(
        asr, short_video, monkeypatch):
    import ctranslate2

    path, _ = short_video
    first = asr.transcribe(str(path))
    seeds = []
    real = ctranslate2.set_random_seed
    monkeypatch.setattr(ctranslate2, "set_random_seed", lambda seed: (seeds.append(seed), real(seed)))
    real(12345)   # another state, as after other videos
    again = asr.transcribe(str(path))
    assert seeds and set(seeds) == {0}
    assert [(s.start, s.end, s.text) for s in again] == [(s.start, s.end, s.text) for s in first]


def test_a_window_that_samples_comes_out_the_same_whatever_was_decoded_before(sample_dir, monkeypatch):
    """15 s windows of the cast-iron how-to: one falls back to sampling. Decoded again on a new
    instance (its worker's generator seeded afresh), its words do not depend on what the pooled
    instance decoded before (measured before this: the second transcription differed)."""
    from videorag.asr.faster_whisper import FasterWhisperASR, Pool

    folder = sample_dir[0]
    asr = FasterWhisperASR(window_seconds=15.0, language="en")
    asr.warm_up()
    made, real = [], Pool.fresh
    monkeypatch.setattr(Pool, "fresh", lambda pool: (made.append(1), real(pool))[1])
    first = asr.transcribe(str(folder / "clean-a-cast-iron-pan.mp4"))
    asr.transcribe(str(folder / "repot-a-houseplant.mp4"))   # the pooled instance's draws move on
    again = asr.transcribe(str(folder / "clean-a-cast-iron-pan.mp4"))
    assert len(made) >= 2   # a window of each cast-iron transcription sampled
    assert [(s.start, s.end, s.text) for s in again] == [(s.start, s.end, s.text) for s in first]


def test_a_translation_that_samples_is_translated_again_on_a_new_instance():
    """The English translation of speech in another language: when a piece of it was sampled, it
    is decoded again on a new instance, as a sampled transcript is (a double for the model)."""
    from types import SimpleNamespace

    from videorag.asr.faster_whisper import FasterWhisperASR

    def model(text, temperature):
        piece = SimpleNamespace(start=0.0, end=2.0, text=f" {text}", temperature=temperature, compression_ratio=1.2)
        return SimpleNamespace(transcribe=lambda audio, **kw: (iter([piece]), None))

    def lent(first):   # a borrowed instance, renewed as a new one
        held = SimpleNamespace(model=first)
        held.renew = lambda: setattr(held, "model", model("drawn afresh", 0.2))
        return held

    asr = FasterWhisperASR(language="es")
    assert [s.text for s in asr._translated(lent(model("greedy", 0.0)), None, "es", 10.0)] == ["greedy"]
    again = asr._translated(lent(model("drawn after other windows", 0.4)), None, "es", 10.0)
    assert [(s.start, s.end, s.text) for s in again] == [(10.0, 12.0, "drawn afresh")]


def test_streams_transcribe_at_once_with_the_transcripts_of_one_stream(asr, sample_dir):
    """Two videos transcribed from two threads at once (each borrows its own model instance, as
    the local engine's streams do) come out as when transcribed one after the other."""
    from concurrent.futures import ThreadPoolExecutor

    paths = [str(p) for p in sorted(sample_dir[0].glob("*.mp4"))[:2]]
    alone = [asr.transcribe(p) for p in paths]
    with ThreadPoolExecutor(2) as pool:
        together = list(pool.map(asr.transcribe, paths))
    assert asr.streams == 2 and all(alone)
    assert [[(s.start, s.end, s.text) for s in t] for t in together] == [
        [(s.start, s.end, s.text) for s in t] for t in alone]


def test_a_long_videos_windows_go_to_the_idle_instances_with_the_transcript_of_one_stream(sample_dir, monkeypatch):
    """10 s windows of a 34 s video, decoded two at a time by two instances: the transcript of one
    instance decoding them in turn."""
    import threading
    import time

    from videorag.asr import faster_whisper
    from videorag.asr.faster_whisper import FasterWhisperASR

    monkeypatch.setattr(faster_whisper, "cpu_threads", lambda: 1)   # the same threads in each instance: the
    path = str(sample_dir[0] / "fix-a-flat-bike-tire.mp4")          # numbers (so the words) depend on them
    one = FasterWhisperASR(window_seconds=10.0)
    two = FasterWhisperASR(window_seconds=10.0, streams=2)
    real, now, most, lock = two._window, [0], [0], threading.Lock()

    def window(*args):   # slowed down: windows overlap when they run at once
        with lock:
            now[0] += 1
            most[0] = max(most[0], now[0])
        time.sleep(0.2)
        try:
            return real(*args)
        finally:
            with lock:
                now[0] -= 1

    two._window = window
    heard = []
    segments = two.transcribe(path, progress=heard.append)
    assert most[0] == 2 and len(heard) >= 3 and heard == sorted(heard)   # progress in order of the audio
    assert [(s.start, s.end, s.text) for s in segments] == [(s.start, s.end, s.text) for s in one.transcribe(path)]


def test_the_local_engine_builds_streams_videos_at_once_and_returns_them_in_order(tmp_path):
    import threading
    import time

    from videorag.config import IngestConfig
    from videorag.ingest.engines.local import LocalEngine, build_streams

    assert build_streams(IngestConfig(streams=3)) == 3 and build_streams(IngestConfig(engine="ray", streams=3)) == 1

    class Ingestor:
        def __init__(self):
            self.now = self.most = 0
            self.lock = threading.Lock()

        def frames(self, path):
            return [path.name]

        def outcome(self, path, video_id, frames):
            with self.lock:
                self.now += 1
                self.most = max(self.most, self.now)
            time.sleep(0.05 if video_id == "v0" else 0.01)   # the first finishes last
            with self.lock:
                self.now -= 1
            return video_id, frames()

    todo = [(tmp_path / f"{i}.mp4", f"v{i}") for i in range(5)]
    for streams, most in ((1, 1), (3, 3)):
        ingestor = Ingestor()
        built = [(path, job()) for path, job in LocalEngine(IngestConfig(streams=streams)).build(ingestor, todo)]
        assert built == [(p, (v, [p.name])) for p, v in todo]
        assert ingestor.most == most


def test_an_interrupted_run_stops_the_builds_in_flight_instead_of_finishing_them(sample_dir, embedder, tmp_path):
    """Ctrl-C while two long videos are being transcribed: the run stops at their next piece
    of audio, not after their whole transcription (here 20 s each)."""
    import time

    from videorag import VideoRAG
    from videorag.types import Segment

    class LongASR:   # hears ~0.1 s of audio every 0.05 s, 20 s in all, unless stopped
        model_name = "whisper-tiny.en"
        pieces = 0

        def transcribe(self, path, progress=None):
            for i in range(400):
                time.sleep(0.05)
                LongASR.pieces += 1
                progress(i * 0.1)
            return [Segment(0.0, 1.0, "words")]

    def interrupt(done, total, current, result):   # the first report, as the builds run
        time.sleep(0.5)
        raise KeyboardInterrupt

    rag = VideoRAG(tmp_path / "index", asr=LongASR(), embedder=embedder)
    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        rag.add([sample_dir[0]], progress=interrupt)
    assert time.perf_counter() - start < 10 and LongASR.pieces < 100
    assert rag.library.info()["videos"] == 0


def test_each_file_reports_its_stages_in_order_with_an_estimate_of_the_time_left(make_rag, short_video, monkeypatch):
    from videorag.ingest import progress as progress_module

    monkeypatch.setattr(progress_module, "MIN_SECONDS", 0.0)   # an estimate from the first report on
    heard = []
    make_rag().add([short_video[0]], stages=lambda current, stage, left: heard.append((current, stage, left)))
    names = [stage for _, stage, _ in heard]
    assert names[0] == "transcribe" and names.count("transcribe") >= 2   # the recogniser says how far it is
    order = [n for i, n in enumerate(names) if i == 0 or names[i - 1] != n]
    assert order == ["transcribe", "embed", "decode", "write"]
    assert all(c.endswith("make-tea.mp4") for c, _, _ in heard)
    lefts = [left for _, _, left in heard if left is not None]
    assert lefts and lefts[-1] < lefts[0]   # less left as the file goes through its stages


def test_the_time_left_scales_the_elapsed_time_by_the_work_left(tmp_path, monkeypatch):
    from videorag.ingest import progress as progress_module

    for name, size in (("a.mp4", 300), ("b.mp4", 100)):
        (tmp_path / name).write_bytes(b"\0" * size)
    clock = iter([0.0, 10.0, 10.0, 10.0])
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: next(clock))
    heard = []
    tracker = progress_module.Tracker([tmp_path / "a.mp4", tmp_path / "b.mp4"], lambda *r: heard.append(r))
    tracker.stage(tmp_path / "a.mp4", "transcribe", 0.5)   # 0.3 of a, 90 of 400 bytes, in 10 s
    assert heard[-1][1] == "transcribe" and abs(heard[-1][2] - 10 * 310 / 90) < 1e-6
    tracker.finished(tmp_path / "a.mp4")
    tracker.stage(tmp_path / "b.mp4", "caption", shown="ocr")
    assert heard[-1][1] == "ocr" and abs(heard[-1][2] - 10 * (400 - 300 - 0.85 * 100) / (300 + 85)) < 1e-6
    assert progress_module.eta_text(None) == "" and progress_module.eta_text(150) == "about 2 min left"


def test_the_time_left_counts_every_file_being_built_at_once(tmp_path, monkeypatch):
    from videorag.ingest import progress as progress_module

    for name in ("a.mp4", "b.mp4"):
        (tmp_path / name).write_bytes(b"\0" * 100)
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: 10.0)
    heard = []
    tracker = progress_module.Tracker([tmp_path / "a.mp4", tmp_path / "b.mp4"], lambda *r: heard.append(r))
    tracker.started = 0.0
    tracker.stage(tmp_path / "a.mp4", "transcribe", 0.5)   # 30 of 200 bytes
    tracker.stage(tmp_path / "b.mp4", "embed")             # and 60 more, at once
    assert abs(heard[-1][2] - 10 * (200 - 90) / 90) < 1e-6
    tracker.finished(tmp_path / "a.mp4")
    tracker.stage(tmp_path / "b.mp4", "decode")            # 100 done, 70 of b
    assert abs(heard[-1][2] - 10 * (200 - 170) / 170) < 1e-6


def test_plain_stage_lines_say_each_stage_once_not_each_tick():
    from videorag.ingest.progress import stage_lines

    lines = []
    report = stage_lines(lines.append)
    for current, stage, left in [("/v/a.mp4", "transcribe", None), ("/v/a.mp4", "transcribe", 90.0),
                                 ("/v/a.mp4", "transcribe", 80.0), ("/v/a.mp4", "embed", 200.0),
                                 ("/v/b.mp4", "embed", 30.0)]:
        report(current, stage, left)
    assert lines == ["a.mp4 · transcribe", "a.mp4 · embed · about 3 min left", "b.mp4 · embed · under a minute left"]


def test_plain_stage_lines_of_files_built_at_once_say_each_stage_once():
    """Two files transcribed at once (the local engine's two streams) report their ticks in
    turns: `videorag index DIR | cat` printed "transcribe" again at each turn."""
    from videorag.ingest.progress import stage_lines

    lines = []
    report = stage_lines(lines.append)
    for current, stage in [("/v/a.mp4", "transcribe"), ("/v/b.mp4", "transcribe"), ("/v/a.mp4", "transcribe"),
                           ("/v/b.mp4", "transcribe"), ("/v/a.mp4", "embed"), ("/v/b.mp4", "transcribe"),
                           ("/v/b.mp4", "embed")]:
        report(current, stage, None)
    assert lines == ["a.mp4 · transcribe", "b.mp4 · transcribe", "a.mp4 · embed", "b.mp4 · embed"]
