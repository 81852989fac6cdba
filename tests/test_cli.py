"""The CLI's JSON contracts and exit statuses."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from videorag.cli import EXIT_ERROR, EXIT_PARTIAL, main

pytestmark = pytest.mark.slow


def test_search_json_contract(demo_rag, capsys):
    assert main(["search", "how do I fix a puncture", "--index", str(demo_rag.location.local),
                 "--top-k", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["query"] == "how do I fix a puncture"
    assert len(out["results"]) == 3
    first = out["results"][0]
    assert set(first) == {"video_id", "path", "start", "end", "span", "score", "text", "weak"}
    assert "fix-a-flat-bike-tire" in first["path"] and first["end"] > first["start"]
    assert [r["score"] for r in out["results"]] == sorted((r["score"] for r in out["results"]), reverse=True)


def test_ask_json_contract(demo_rag, capsys):
    assert main(["ask", "How long between coats of paint?", "--index", str(demo_rag.location.local),
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"question", "answer", "citations", "generator", "judge", "claims", "parts", "abstained",
                        "answerable", "index"}
    assert out["index"] == str(demo_rag.location.local.resolve())
    assert out["generator"] == "extractive" and "four hours" in out["answer"].lower()
    assert out["abstained"] is False and out["claims"] and all(c["supported"] is None for c in out["claims"])   # no judge here
    assert out["judge"] is None   # no judge model installed for the tests
    assert set(out["citations"][0]) == {"video_id", "path", "start", "end", "span"}
    assert "paint-a-wall" in out["citations"][0]["path"]


def test_judge_flags_reach_the_config():
    from videorag.cli.parser import build_parser
    from videorag.options import make_config

    def judge(*argv):
        return make_config(build_parser().parse_args(list(argv))).search.judge

    on = judge("search", "q", "--judge", "--judge-model", "m.gguf")
    assert on.enabled is True and on.reranker.model == "m.gguf" and on.reranker.generator == "llamacpp"
    off = judge("ask", "q", "--no-judge", "--judge-server", "http://j/v1")
    assert off.enabled is False and (off.reranker.generator, off.reranker.base_url) == ("openai", "http://j/v1")
    assert judge("ask", "q").enabled is None and judge("search", "q").enabled is None   # each command's default


def test_models_says_where_each_comes_from(capsys):
    assert main(["models"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert "Apache-2.0" in lines["qwen2.5-coder-1.5b-instruct-q4_k_m"]
    assert lines["all-MiniLM-L6-v2"].split()[-1] == "installed"
    assert main(["models", "--assemble", "all-MiniLM-L6-v2"]) == EXIT_ERROR   # not a split model


def test_models_says_how_llama_cpp_was_built(capsys, monkeypatch):
    from videorag.llm import gguf

    wheel = {"prebuilt": "Tag: cp310-abi3-manylinux_2_17_x86_64\n", "compiled": "Tag: cp310-abi3-linux_x86_64\n"}
    for built, tag in wheel.items():
        monkeypatch.setattr(gguf, "_wheel", lambda tag=tag: tag)
        for avx512 in (True, False):
            monkeypatch.setattr(gguf, "_avx512", lambda avx512=avx512: avx512)
            assert main(["models"]) == 0
            said = capsys.readouterr().out.splitlines()[-1]
            assert said.startswith("llama.cpp: ") and ("prebuilt" in said) == (built == "prebuilt")
            assert ("make native` compiles" in said) == (built == "prebuilt" and avx512)   # said only where it pays


def test_judged_search_reports_the_judge_apart(demo_rag, capsys, monkeypatch):
    from videorag.rerank import RERANKERS

    monkeypatch.setitem(RERANKERS._entries, "llm", "tests.judge_double:KeywordJudge")
    assert main(["search", "how do I fix a puncture", "--index", str(demo_rag.location.local), "--judge", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["results"]
    assert "judge keyword-judge: loaded in" in captured.err and "judged in" in captured.err


def test_info_json(demo_rag, capsys):
    assert main(["info", "--index", str(demo_rag.location.local), "--json"]) == 0
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


def test_indexing_only_missing_paths_is_an_error_that_writes_nothing(tmp_path, capsys):
    from tests.reliability.media import tiny_videos

    new = tmp_path / "new-index"
    assert main(["index", str(tmp_path / "does-not-exist"), "--index", str(new)]) == EXIT_ERROR
    err = capsys.readouterr().err
    assert "error: nothing to index" in err and "does-not-exist: no such file or folder" in err
    assert not new.exists()   # no empty index left behind
    tiny_videos(tmp_path / "v", 1)
    existing = tmp_path / "existing"
    assert main(["index", str(tmp_path / "v"), "--index", str(existing), "--embed-backend", "hashing"]) == 0
    before = {path: path.stat().st_mtime_ns for path in existing.rglob("*")}
    assert main(["index", str(tmp_path / "nope"), "--index", str(existing), "--embed-backend", "hashing"]) == EXIT_ERROR
    assert {path: path.stat().st_mtime_ns for path in existing.rglob("*")} == before   # untouched


def test_a_terminal_of_no_width_gets_a_line_per_stage_not_a_bar(tmp_path, monkeypatch):
    import io
    import os

    from tests.reliability.media import tiny_videos
    from videorag.console import bar_fits

    class ZeroByZero(io.StringIO):   # some IDEs' terminals: a tty that reports 0×0 columns
        def isatty(self):
            return True

        def fileno(self):
            return 2

    monkeypatch.setattr(os, "get_terminal_size", lambda fd: os.terminal_size((0, 0)))
    assert not bar_fits(ZeroByZero()) and not bar_fits(io.StringIO())   # nor a pipe
    tiny_videos(tmp_path / "v", 2)
    monkeypatch.setattr(sys, "stderr", ZeroByZero())
    assert main(["index", str(tmp_path / "v"), "--index", str(tmp_path / "ix"), "--embed-backend", "hashing"]) == 0
    lines = sys.stderr.getvalue().splitlines()
    assert lines[0] == "loading models…" and "indexing" not in sys.stderr.getvalue()   # said first; no bar
    stages = [line.split(" · ")[:2] for line in lines if " · " in line]
    for n in (0, 1):   # two videos are built at once: their lines interleave, each file's in order
        assert [stage for name, stage in stages if name == f"video-{n}.mp4"] == ["embed", "decode", "write"]
    assert len(stages) == 6


@pytest.mark.parametrize("value, said", [("0", "got 0"), ("abc", "got 'abc'"), ("101", "got 101")])
def test_a_bad_count_is_one_line_in_words(value, said, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["search", "x", "--top-k", value])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "usage" not in err and "parse" not in err
    assert "--top-k: expected a whole number from 1 to 100, " + said in err and "--help" in err   # the API's bounds


def test_serve_and_mcp_offer_no_json_output(capsys):
    for command in ("serve", "mcp"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "--json" not in capsys.readouterr().out


def test_the_index_just_built_is_the_one_the_next_command_finds(demo_rag, tmp_path, monkeypatch, capsys):
    from videorag.where import remember

    monkeypatch.chdir(tmp_path)   # no ./videorag-index here
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    remember(str(demo_rag.location.local))
    assert main(["info", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["videos"] == 5 and "built last" in info["chosen_by"]
    monkeypatch.setenv("VIDEORAG_INDEX", str(tmp_path / "elsewhere"))
    assert main(["search", "x"]) == EXIT_ERROR   # the variable wins, and names a missing index
    assert "elsewhere" in capsys.readouterr().err


def test_a_remembered_index_is_named_on_stderr_and_in_the_json(tmp_path, monkeypatch, capsys):
    from tests.reliability.media import tiny_videos
    from videorag import Config, VideoRAG
    from videorag.embed.hashing import HashingEmbedder
    from videorag.where import remember

    tiny_videos(tmp_path / "v", 2)
    built = (tmp_path / "built").resolve()
    VideoRAG(built, Config(), embedder=HashingEmbedder()).add([tmp_path / "v"])
    monkeypatch.chdir(tmp_path / "v")   # no ./videorag-index here
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    remember(str(built))
    for argv in (["search", "kettle"], ["info"]):   # and ask: test_ask_json_contract
        assert main([*argv, "--json", "--embed-backend", "hashing"]) == 0
        captured = capsys.readouterr()
        assert json.loads(captured.out)["index"] == str(built), argv
        assert captured.err.splitlines()[0] == f"using index {built} (the one built last; --index to choose)"
    assert main(["search", "kettle", "--index", "../built", "--json", "--embed-backend", "hashing"]) == 0
    captured = capsys.readouterr()   # named: nothing said, and the JSON's path is absolute
    assert "using index" not in captured.err and json.loads(captured.out)["index"] == str(built)


def test_a_remembered_index_that_is_gone_is_said_before_the_error(tmp_path, monkeypatch, capsys):
    from videorag.where import remember

    monkeypatch.chdir(tmp_path)   # no ./videorag-index here
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    remember(str(tmp_path / "deleted-index"))   # remembered, never there
    assert main(["search", "x"]) == EXIT_ERROR
    err = capsys.readouterr().err.splitlines()
    gone = tmp_path / "deleted-index"
    assert err[0] == f"the index built last, {gone}, is gone (moved or deleted); --index to choose one"
    assert "no videorag index at videorag-index" in err[1]
    (tmp_path / "videorag-index").mkdir()   # one here: it is the one meant, nothing said of the old
    main(["search", "x"])
    assert "is gone" not in capsys.readouterr().err


def test_index_writes_where_the_user_is_not_into_the_remembered_index(tmp_path, monkeypatch):
    from videorag.where import default_index, remember

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    remember(str(tmp_path / "demo-index"))
    (tmp_path / "demo-index").mkdir()
    assert default_index(writing=True) == ("videorag-index", "the current folder")
    assert default_index()[0] == str(tmp_path / "demo-index")


def test_hits_below_the_relevance_floor_are_marked_weak(demo_rag, capsys):
    assert main(["search", "quantum chromodynamics on a lattice", "--index", str(demo_rag.location.local), "--json"]) == 0
    assert all(h["weak"] for h in json.loads(capsys.readouterr().out)["results"])
    assert main(["search", "how do I patch a tube", "--index", str(demo_rag.location.local), "--json"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert not results[0]["weak"] and "bike" in results[0]["path"] and any(h["weak"] for h in results[1:])
    weak = [h["weak"] for h in results]
    assert weak == sorted(weak), results   # best score first: no unmarked hit scored under a marked one
    assert main(["search", "how do I patch a tube", "--index", str(demo_rag.location.local), "--moments", "--json"]) == 0
    weak = [h["weak"] for h in json.loads(capsys.readouterr().out)["results"]]
    assert weak == sorted(weak)
    assert main(["search", "how do I patch a tube", "--index", str(demo_rag.location.local), "--weak-below", "-1"]) == 0
    out = capsys.readouterr().out
    assert out.count("weak match") == sum(h["weak"] for h in results)   # the gap to the best still marks
