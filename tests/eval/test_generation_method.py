"""`videorag eval generation --method NAME`: the retrieval method named is the one that ranks the
transcripts the generator reads (textvideorag by default, as the help says)."""
from __future__ import annotations

import json

import pytest

import videorag.methods
from videorag.cli import main

from .test_harness import corpus  # noqa: F401  (the fixture)


@pytest.fixture()
def ranked_by(monkeypatch):
    """The names of the retrieval methods created while a command runs (the real methods rank)."""
    names = []
    create = videorag.methods.create_method

    def spy(name, *args, **kwargs):
        names.append(name)
        return create(name, *args, **kwargs)

    monkeypatch.setattr(videorag.methods, "create_method", spy)
    return names


def _generation(corpus, tmp_path, *method):  # noqa: F811
    argv = ["eval", "generation", "--transcripts", str(corpus[0]), "--qa", str(corpus[1]), *method,
            "--generator", "extractive", "--set", "embed.backend=hashing", "--json",
            "--cache-dir", str(tmp_path / "cache")]
    return main(argv)


@pytest.mark.parametrize("method", ["textvideorag", "best", "bm25"])
def test_the_named_method_ranks(corpus, tmp_path, capsys, ranked_by, method):  # noqa: F811
    assert _generation(corpus, tmp_path, "--method", method) == 0
    assert ranked_by == [method]
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == method and out["n"] == 2


def test_the_default_is_textvideorag(corpus, tmp_path, capsys, ranked_by):  # noqa: F811
    assert _generation(corpus, tmp_path) == 0
    assert ranked_by == ["textvideorag"]
    assert json.loads(capsys.readouterr().out)["method"] == "textvideorag"


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_a_level_without_items_ranks_without_numpy_warnings(corpus, tmp_path, capsys):  # noqa: F811
    """The transcript corpus has no segment level by default (`segment_words` 0): its fused
    scores' deviation is 0, not the NaN of an empty array's std with two RuntimeWarnings."""
    assert _generation(corpus, tmp_path) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 2


def test_an_unknown_method_lists_the_valid_ones(corpus, tmp_path, capsys):  # noqa: F811
    assert _generation(corpus, tmp_path, "--method", "nonesuch") != 0
    err = capsys.readouterr().err
    assert "'nonesuch'" in err and "naive | oracle | textrag" in err and "textvideorag" in err
