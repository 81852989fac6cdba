"""Writers of one index: one at a time, idempotent, crash-safe; the invariants checker."""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pytest

from videorag import Config, VideoRAG
from videorag.embed.hashing import HashingEmbedder
from videorag.errors import IndexError_
from videorag.index import VideoIndex
from videorag.index.check import check, repair
from videorag.index.lock import LOCK_FILE, writer_lock
from videorag.index import VideoRecord
from videorag.index.meta import META_FILE

from .media import tiny_videos

CLI = [sys.executable, "-m", "videorag.cli"]
FAST = ["--embed-backend", "hashing"]


def videorag(*args: str | Path, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([*CLI, *map(str, args), *FAST], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


def finish(proc: subprocess.Popen) -> tuple[int, str]:
    _, err = proc.communicate(timeout=300)
    return proc.returncode, err


def open_index(path: Path) -> VideoIndex:
    index = VideoIndex.open(path)
    index.refresh()
    return index


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("tiny")
    tiny_videos(folder, 6)
    return folder


def test_two_concurrent_indexers_leave_one_copy_of_each_video(folder, tmp_path):
    index_dir = tmp_path / "index"
    first, second = videorag("index", folder, "--index", index_dir), videorag("index", folder, "--index", index_dir)
    results = [finish(first), finish(second)]
    assert [rc for rc, _ in results] == [0, 0], results
    summaries = sorted(err.strip().splitlines()[-1].split(" -> ")[0] for _, err in results)
    assert summaries == ["0 added, 0 moved, 6 unchanged, 0 failed", "6 added, 0 moved, 0 unchanged, 0 failed"]
    index = open_index(index_dir)
    ids = index.row_ids("videos").to_pylist()
    assert len(ids) == len(set(ids)) == 6
    assert check(index) == []


def test_second_writer_fails_fast_with_wait_zero(folder, tmp_path):
    index_dir = tmp_path / "index"
    index_dir.mkdir()
    with writer_lock(index_dir).hold():
        rc, err = finish(videorag("index", folder, "--index", index_dir, "--wait", "0"))
    assert rc == 1
    said = [line for line in err.strip().splitlines() if line != "loading models…"]
    assert len(said) == 1 and "Traceback" not in err  # one line, no traceback
    assert "being written by another writer" in err and f"(pid {os.getpid()})" in err


def test_lock_is_reentrant_and_shared_per_directory(tmp_path):
    lock = writer_lock(tmp_path)
    assert writer_lock(tmp_path / ".") is lock
    with lock.hold(0), lock.hold(0):
        assert (tmp_path / LOCK_FILE).read_text().strip() == str(os.getpid())


def test_orphan_cleanup_waits_for_a_running_ingest(folder, tmp_path):
    """The clean-up of a starting writer must not delete rows another run is writing."""
    index_dir = tmp_path / "index"
    ingest = videorag("index", folder, "--index", index_dir)
    deadline = time.monotonic() + 120
    while not (index_dir / META_FILE).is_file() or not (index_dir / LOCK_FILE).read_text().strip():
        assert time.monotonic() < deadline and ingest.poll() is None
        time.sleep(0.05)
    cleanup = subprocess.run([sys.executable, "-c", (
        "import sys; from videorag.index import VideoIndex; "
        "print(VideoIndex.open(sys.argv[1]).remove_orphans())"), str(index_dir)],
        capture_output=True, text=True, timeout=300)
    assert cleanup.returncode == 0, cleanup.stderr
    assert finish(ingest)[0] == 0
    index = open_index(index_dir)
    assert check(index) == [] and len(index.video_ids()) == 6


def kill_then_rerun(folder: Path, index_dir: Path, command: list, delay: float) -> VideoIndex:
    """`kill -9` a writer after `delay` seconds, re-run the ingest, return the index."""
    proc = videorag(*command)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert finish(videorag("index", folder, "--index", index_dir))[0] == 0
    return open_index(index_dir)


@pytest.mark.parametrize("trial", [0, *(pytest.param(t, marks=pytest.mark.soak) for t in range(1, 12))])
def test_kill_during_ingest_then_rerun_holds_invariants(folder, tmp_path, trial):
    index_dir = tmp_path / "index"
    delay = random.Random(trial).uniform(0.5, 8.0)
    index = kill_then_rerun(folder, index_dir, ["index", folder, "--index", index_dir], delay)
    assert check(index) == [] and len(index.video_ids()) == 6


@pytest.mark.parametrize("trial", [0, *(pytest.param(t, marks=pytest.mark.soak) for t in range(1, 12))])
def test_kill_during_remove_then_rerun_holds_invariants(folder, tmp_path, trial):
    index_dir = tmp_path / "index"
    assert finish(videorag("index", folder, "--index", index_dir))[0] == 0
    delay = random.Random(trial).uniform(0.5, 6.0)
    index = kill_then_rerun(folder, index_dir, ["remove", *sorted(folder.glob("*.mp4")), "--index", index_dir],
                            delay)
    assert check(index) == [] and len(index.video_ids()) == 6


def make(tmp_path: Path, folder: Path) -> VideoRAG:
    rag = VideoRAG(tmp_path / "index", Config(), embedder=HashingEmbedder())
    rag.add([folder])
    return rag


def test_check_finds_and_repairs_each_broken_invariant(folder, tmp_path):
    rag = make(tmp_path, folder)
    index = rag.library.index
    first, second, third = sorted(index.video_ids())[:3]
    videos = index.videos()
    index._tables["videos"].add(videos.filter(pc.equal(videos["video_id"], first)))  # a doubled row
    index._tables["units"].delete(f"video_id = '{second}' AND kind = 'chunk'")     # lost units
    index._tables["videos"].delete(f"video_id = '{third}'")                        # orphaned rows
    found = {(p.kind, p.video_id) for p in check(index)}
    assert found == {("duplicate", first), ("incomplete", second), ("orphan", third)}
    actions = repair(index, check(index))
    assert len(actions) == 3 and check(index) == []
    assert index.video_ids() == set(index.row_ids("videos").to_pylist()) and len(index.video_ids()) == 4
    report = rag.add([folder])  # the removed and the incomplete video come back whole
    assert report.count("added") == 2 and check(rag.library.index) == []


def test_check_cli_reports_problems_and_repairs(folder, tmp_path):
    rag = make(tmp_path, folder)
    rag.library.index._tables["units"].delete(f"video_id = '{sorted(rag.library.index.video_ids())[0]}'")
    rc, err = finish(videorag("check", "--index", tmp_path / "index"))
    assert rc == 1 and "incomplete" in err and "--repair" in err
    rc, err = finish(videorag("check", "--repair", "--index", tmp_path / "index"))
    assert rc == 0 and "repaired" in err
    rc, err = finish(videorag("check", "--index", tmp_path / "index"))
    assert rc == 0 and err.startswith("ok:")


def test_rewriting_a_video_keeps_one_row(folder, tmp_path):
    rag = make(tmp_path, folder)
    index = rag.library.index
    video_id = sorted(index.video_ids())[0]
    record_rows = index.row_ids("units").to_pylist().count(video_id)
    segments = index.segments(video_id)
    vectors = rag.library.embedder.embed([s.text for s in segments])
    chunks = index.segments(video_id, "chunk")
    record = VideoRecord(video_id, "/elsewhere.mp4", 1, 1, 4.0, "subtitles", segments, vectors, chunks,
                         rag.library.embedder.embed([c.text for c in chunks]).astype(np.float32))
    index.add(record)
    index.add(record)  # a retried write
    assert index.row_ids("videos").to_pylist().count(video_id) == 1
    assert index.row_ids("units").to_pylist().count(video_id) == record_rows
    assert check(index) == []


def test_remove_holds_the_lock(folder, tmp_path):
    rag = make(tmp_path, folder)
    rag.config.lock_wait = 0
    rag.library.index.lock_wait = 0
    with writer_lock(tmp_path / "index").hold():  # re-entrant here: same process may go on
        assert rag.library.remove([sorted(rag.library.index.video_ids())[0]])
    proc = subprocess.run([*CLI, "remove", sorted(rag.library.index.video_ids())[0], "--index", str(tmp_path / "index"),
                           "--wait", "0", *FAST], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0


def test_index_path_that_is_a_file_is_one_clear_line(folder, tmp_path):
    target = tmp_path / "not-a-dir"
    target.write_text("x")
    for args in (("index", folder), ("search", "kettle"), ("info",)):
        rc, err = finish(videorag(*args, "--index", target))
        assert rc == 1 and err.strip().count("\n") == 0 and "is a file, not a directory" in err, err


def test_fresh_reads_see_another_processes_writes(folder, tmp_path):
    rag = VideoRAG(tmp_path / "index", Config(), embedder=HashingEmbedder())
    rag.add([folder / "video-0.mp4"])
    assert len(rag.search("kettle", top_k=5)) == 1
    assert finish(videorag("index", folder, "--index", tmp_path / "index"))[0] == 0
    assert len(rag.search("kettle", top_k=10)) == 6
    assert rag.library.info()["videos"] == 6
    assert finish(videorag("remove", folder / "video-1.mp4", "--index", tmp_path / "index"))[0] == 0
    assert len(rag.search("kettle", top_k=10)) == 5


def test_embedder_fingerprint_refuses_another_model_under_the_same_name(folder, tmp_path):
    class Other(HashingEmbedder):
        fingerprint = "another-model"

    class Same(HashingEmbedder):
        fingerprint = "model-a"

    rag = VideoRAG(tmp_path / "index", Config(), embedder=Same())
    rag.add([folder / "video-0.mp4"])
    assert VideoIndex.open(tmp_path / "index").meta["embed_fingerprint"] == "model-a"
    with pytest.raises(IndexError_, match="another model named"):
        VideoRAG(tmp_path / "index", Config(), embedder=Other()).search("kettle")
    with pytest.raises(IndexError_, match="another model named"):
        VideoRAG(tmp_path / "index", Config(), embedder=Other()).add([folder])
    assert VideoRAG(tmp_path / "index", Config(), embedder=Same()).search("kettle")


def test_fingerprint_tells_model_folders_apart(tmp_path):
    from videorag.models import fingerprint

    def model(name: str, weights: bytes) -> Path:
        folder = tmp_path / name / "model"  # the same folder name: the index's label for both
        folder.mkdir(parents=True)
        (folder / "config.json").write_text('{"dim": 8}')
        (folder / "model.safetensors").write_bytes(weights)
        return folder

    size = 9 << 20  # large enough to be sampled, not read whole
    a, b = model("a", os.urandom(size)), model("b", os.urandom(size))
    assert fingerprint(a) != fingerprint(b)
    assert fingerprint(a) == fingerprint(model("copy", (a / "model.safetensors").read_bytes()))
    (b / "config.json").write_text('{"dim": 9}')
    assert fingerprint(b) != fingerprint(model("b2", (b / "model.safetensors").read_bytes()))
    assert fingerprint("not/a/local/path") is None
