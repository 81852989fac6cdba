"""`videorag search` and `ask` handed to a real `videorag serve` of the same index running on this
machine (a subprocess over a tiny index of subtitled videos and the hashing embedder): no models
loaded by the command, the server named on stderr; in this process when told so, when an option
the HTTP API cannot carry is given, or when the server is gone."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.reliability.media import tiny_videos
from tests.serve.test_browser import served
from videorag import Config, VideoRAG
from videorag.cli import main
from videorag.embed.hashing import HashingEmbedder
from videorag.serve.running import find, folder

pytestmark = pytest.mark.slow
QUERY = "boil water in a kettle"
SERVER = ("--no-judge", "--generator", "extractive")   # the server's settings (and the hashing embedder)


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("handoff")
    tiny_videos(root / "videos", 3, seconds=8)
    index = root / "index"
    VideoRAG(index, Config(), embedder=HashingEmbedder()).add([root / "videos"])
    return index


@pytest.fixture(scope="module")
def server(index):
    with served(index, token=None, options=SERVER) as url:
        yield url


def test_search_and_ask_are_answered_by_the_server_of_their_index(index, server, capsys):
    served = find(index)
    assert served is not None and served.url == server and served.index == str(index.resolve())
    said = f"answered by the videorag serve at {urlparse(server).netloc} (pid {served.pid})"

    assert main(["search", QUERY, "--index", str(index), "--top-k", "2"]) == 0
    out, err = capsys.readouterr()
    assert said in err.splitlines()
    assert out.startswith("1. ") and "video-0.mp4" in out and "2. " in out and "3. " not in out

    assert main(["ask", "how do I boil water in a kettle?", "--index", str(index), "--json"]) == 0
    out, err = capsys.readouterr()
    answer = json.loads(out)
    assert said in err and answer["generator"] == "extractive" and answer["index"] == str(index.resolve())
    assert "video-0.mp4" in answer["citations"][0]["path"]

    # answered here: the index's own embedder (hashing, recorded in it) made in this process
    assert main(["search", QUERY, "--index", str(index), "--no-server"]) == 0
    assert said not in capsys.readouterr().err


def test_the_server_answers_as_this_process_would(index, server, capsys):
    assert main(["search", QUERY, "--index", str(index), "--json", "--moments"]) == 0
    there = json.loads(capsys.readouterr().out)
    assert main(["search", QUERY, "--index", str(index), "--json", "--moments", "--no-server",
                 "--embed-backend", "hashing"]) == 0
    here = json.loads(capsys.readouterr().out)
    assert there == here and len(here["results"]) > 3


def test_an_option_the_api_cannot_carry_keeps_the_command_here(index, server, capsys, monkeypatch):
    assert main(["search", QUERY, "--index", str(index), "--embed-backend", "hashing", "--alpha", "0.3"]) == 0
    assert "answered by" not in capsys.readouterr().err
    monkeypatch.setenv("VIDEORAG_NO_SERVER", "1")
    assert main(["search", QUERY, "--index", str(index)]) == 0   # here
    assert "answered by" not in capsys.readouterr().err


def test_a_server_gone_is_forgotten_and_one_not_answering_is_said(index, server, tmp_path, capsys):
    with served(index, token=None, options=SERVER):
        assert len(list(folder().glob("serve-*.json"))) == 2   # the module's and this one
    assert len(list(folder().glob("serve-*.json"))) == 1       # withdrawn on SIGTERM

    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    other = tmp_path / "other-index"
    left = folder() / f"serve-{ended.stdout.strip()}.json"      # a server killed before it withdrew
    left.write_text(json.dumps({"pid": int(ended.stdout), "url": "http://127.0.0.1:9", "index": str(other)}))
    assert find(other) is None and not left.exists()

    silent = folder() / "serve-1.json"   # a live process (this one) not listening where it says
    silent.write_text(json.dumps({"pid": os.getpid(), "url": "http://127.0.0.1:9", "index": str(index.resolve()),
                                  "started": 1e12}))
    try:
        assert main(["search", QUERY, "--index", str(index)]) == 0   # answered here
        err = capsys.readouterr().err
        assert "the videorag serve at 127.0.0.1:9 (pid " in err and "answered by" not in err
    finally:
        silent.unlink()
