"""Every bad input gets one report line, never a traceback, and the rest of the batch is indexed."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from videorag import Config, VideoRAG
from videorag.embed.hashing import HashingEmbedder
from videorag.index.check import check

from .media import tiny_video, tiny_videos


def rag_at(tmp_path: Path) -> VideoRAG:
    return VideoRAG(tmp_path / "index", Config(), embedder=HashingEmbedder())


def by_status(report) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in report.files:
        out.setdefault(f.status, []).append(f)
    return out


def test_unreadable_file_is_reported_and_the_batch_goes_on(tmp_path, monkeypatch):
    import videorag.ingest.engines.local as pipeline

    videos = tiny_videos(tmp_path / "v", 3)
    real = pipeline.content_id

    def content_id(path):
        if path.name == videos[1].name:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(pipeline, "content_id", content_id)
    report = rag_at(tmp_path).add([tmp_path / "v"])
    groups = by_status(report)
    assert len(groups["added"]) == 2 and len(groups["failed"]) == 1
    assert groups["failed"][0].error.endswith("cannot be read (Permission denied); check its permissions")


def test_unreadable_folder_is_reported(tmp_path, monkeypatch):
    tiny_videos(tmp_path / "v", 2)
    locked = tmp_path / "v" / "locked"
    tiny_videos(locked, 1)
    real = os.scandir

    def scandir(path="."):
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    report = rag_at(tmp_path).add([tmp_path / "v"])
    failed = by_status(report)["failed"]
    assert [f.error for f in failed] == [f"{locked}: folder cannot be read (Permission denied)"]
    assert report.count("added") == 2


def test_a_file_that_is_not_a_video_is_said_in_words(tmp_path):
    folder = tmp_path / "v"
    tiny_videos(folder, 1)
    (folder / "notes.mp4").write_text("this is not a video")
    failed = by_status(rag_at(tmp_path).add([folder]))["failed"]
    assert [f.error for f in failed] == [f"{folder / 'notes.mp4'}: not a video file (invalid data) "
                                         "(the file is corrupt, truncated or not a video; re-export it)"]


def test_longest_file_name_is_indexed(tmp_path):
    name = "n" * (255 - len(".mp4")) + ".mp4"  # the sidecar names beside it are too long to exist
    tiny_video(tmp_path / name, srt=False)
    (tmp_path / ("n" * (255 - len(".mp4")) + ".srt")).write_text("1\n00:00:00,000 --> 00:00:02,000\nhello there\n")
    report = rag_at(tmp_path).add([tmp_path / name])
    assert report.count("added") == 1, report.files


def test_non_utf8_file_name_is_indexed_once_and_leaves_no_orphans(tmp_path):
    folder = tmp_path / "v"
    folder.mkdir()
    path = Path(os.fsdecode(bytes(folder) + b"/caf\xe9.mp4"))
    tiny_video(path)
    rag = rag_at(tmp_path)
    first = rag.add([folder])
    assert first.count("added") == 1 and first.files[0].path.endswith("caf\\xe9.mp4")
    again = rag.add([folder])
    assert again.count("unchanged") == 1 and again.count("added") == 0
    assert check(rag.library.index) == [] and rag.library.info()["videos"] == 1
    assert rag.search("kettle")[0].path.endswith("caf\\xe9.mp4")


def test_truncated_file_is_indexed_with_a_warning(tmp_path):
    whole = tiny_video(tmp_path / "whole.mp4", seconds=20, faststart=True)
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    (tmp_path / "cut.srt").write_text(whole.with_suffix(".srt").read_text())
    report = rag_at(tmp_path).add([cut])
    result = report.files[0]
    assert result.status == "added"
    assert len(result.warnings) == 1 and "of the stated 20.0 s could be decoded" in result.warnings[0]


def test_subtitles_are_checked_against_the_video(tmp_path):
    video = tiny_video(tmp_path / "clip.mp4", seconds=4, srt=False)
    video.with_suffix(".srt").write_text(
        "1\n00:00:01,000 --> 00:00:02,000\nfirst real cue\n\n"
        "2\n00:00:03,000 --> 00:00:01,000\nends before it starts\n\n"
        "3\n00:00:03,000 --> 00:09:00,000\nruns past the end\n\n"
        "4\n99999999999999:00:00,000 --> 99999999999999:00:01,000\nfar past the end\n")
    rag = rag_at(tmp_path)
    result = rag.add([video]).files[0]
    assert result.status == "added" and result.warnings
    assert rag.library.index.videos(["duration"])["duration"].to_pylist() == [pytest.approx(4.0, abs=0.5)]
    segments = rag.library.index.segments(result.video_id)
    assert [s.text for s in segments] == ["first real cue", "runs past the end"]
    assert all(0 <= s.start < s.end <= 4.5 for s in segments)


def run_cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "videorag.cli", *map(str, args), "--embed-backend", "hashing"],
                          capture_output=True, text=True, timeout=300)


def test_cli_reports_each_failure_once_on_one_line(tmp_path):
    folder = tmp_path / "v"
    tiny_videos(folder, 2)
    (folder / "broken.mp4").write_bytes(os.urandom(4096))
    tiny_video(folder / "two\nlines.mp4", seed=7)
    proc = run_cli("index", folder, "--index", tmp_path / "index")
    assert proc.returncode == 3
    lines = proc.stderr.strip().splitlines()
    assert sum("broken.mp4" in line for line in lines) == 1
    assert "Traceback" not in proc.stderr
    assert any(line.startswith("added") and line.endswith("two\\nlines.mp4") for line in lines)
    assert lines[-1].startswith("3 added, 0 moved, 0 unchanged, 1 failed")


def test_printable_escapes_every_control_and_format_character():
    from videorag.names import path_text, printable

    shown = printable("a\nb\x1b[31mc\u202ed\x9be" + os.fsdecode(b"\xe9"))
    assert shown == "a\\nb\\x1b[31mc\\u202ed\\u009be\\xe9"
    assert path_text(os.fsdecode(b"/v/caf\xe9.mp4")) == "/v/caf\\xe9.mp4"
