"""The CLI's JSON contracts and exit statuses."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from videorag.cli import EXIT_ERROR, EXIT_PARTIAL, main

pytestmark = pytest.mark.slow


def test_search_json_contract(demo_rag, capsys):
    assert main(["search", "how do I fix a puncture", "--index", str(demo_rag.index_dir),
                 "--top-k", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["query"] == "how do I fix a puncture"
    assert len(out["results"]) == 3
    first = out["results"][0]
    assert set(first) == {"video_id", "path", "start", "end", "score", "text"}
    assert "fix-a-flat-bike-tire" in first["path"] and first["end"] > first["start"]
    assert [r["score"] for r in out["results"]] == sorted((r["score"] for r in out["results"]), reverse=True)


def test_ask_json_contract(demo_rag, capsys):
    assert main(["ask", "How long between coats of paint?", "--index", str(demo_rag.index_dir),
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"question", "answer", "citations", "generator"}
    assert out["generator"] == "extractive" and "four hours" in out["answer"].lower()
    assert set(out["citations"][0]) == {"video_id", "path", "start", "end"}
    assert "paint-a-wall" in out["citations"][0]["path"]


def test_info_json(demo_rag, capsys):
    assert main(["info", "--index", str(demo_rag.index_dir), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["videos"] == 5 and info["frames"] > 100
    assert info["models"]["embed_model"] == "all-MiniLM-L6-v2"
    assert info["models"]["asr_model"] == "whisper-tiny.en"


def test_missing_index_is_a_one_line_error(tmp_path, capsys):
    assert main(["search", "x", "--index", str(tmp_path / "nope")]) == EXIT_ERROR
    err = capsys.readouterr().err
    assert "no videorag index" in err and "videorag index" in err


def test_partial_ingest_exit_status(tmp_path, short_video):
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "broken.mp4").write_bytes(b"\x00" * 100)
    result = subprocess.run([sys.executable, "-m", "videorag.cli", "index", str(tmp_path / "v"),
                             str(short_video[0]), "--index", str(tmp_path / "ix")],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == EXIT_PARTIAL, result.stderr
    assert "FAILED" in result.stderr and "broken.mp4" in result.stderr
    assert "1 added" in result.stderr and "1 failed" in result.stderr
