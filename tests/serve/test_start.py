"""`videorag serve` before it listens: a location without an index is refused as `search` and
`ask` refuse it, unless the server may write (then its first upload makes the index). uvicorn is
replaced by a recorder: nothing listens."""

from __future__ import annotations

import pytest

from videorag.cli import main
from videorag.console import EXIT_ERROR, EXIT_OK


@pytest.fixture()
def served(monkeypatch) -> list[dict]:
    """The `uvicorn.run` calls a test made (none: the server refused to start)."""
    import uvicorn

    calls: list[dict] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append(kw))
    monkeypatch.delenv("VIDEORAG_TOKEN", raising=False)
    return calls


@pytest.mark.parametrize("made", [False, True], ids=["no-folder", "empty-folder"])
def test_serve_refuses_a_location_without_an_index(tmp_path, capsys, served, made):
    where = tmp_path / "my-index"
    if made:
        where.mkdir()
    assert main(["serve", "--index", str(where)]) == EXIT_ERROR
    err = capsys.readouterr().err
    assert f"no videorag index at {where}" in err  # the error `search` and `ask` give
    assert f"videorag index VIDEOS... --index {where}" in err and "--token" in err
    assert served == [] and where.exists() == made  # nothing served, nothing made


def test_search_gives_the_same_error(tmp_path, capsys, served):
    assert main(["search", "tea", "--index", str(tmp_path / "my-index"), "--no-server"]) == EXIT_ERROR
    assert f"no videorag index at {tmp_path / 'my-index'} (build one with:" in capsys.readouterr().err


def test_a_server_that_may_write_starts_without_an_index(tmp_path, capsys, served):
    where = tmp_path / "my-index"
    assert main(["serve", "--index", str(where), "--token", "s3cret", "--port", "8123"]) == EXIT_OK
    assert len(served) == 1 and served[0]["port"] == 8123
    assert f"no index at {where} yet: the first folder added or video uploaded makes it" in capsys.readouterr().out
