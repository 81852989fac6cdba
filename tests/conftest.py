"""Shared fixtures: media rendered by the tests (espeak-ng narration over drawn slides) and
real models loaded once per session."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from videorag.demo.corpus import SAMPLES
from videorag.demo.render import HowTo, render

SHORT = HowTo("make-tea", "How to make tea", (
    "Boil fresh water in a kettle.",
    "Put one tea bag in a mug and pour the water over it.",
    "Steep for three minutes, then remove the bag.",
))


@pytest.fixture(autouse=True)
def no_installed_judge(request, monkeypatch):
    """Tests run as on a machine without the judge's model (`make test` installs none): `ask` and
    `carve` do not judge by default, whatever this machine has. A test marked `judge_installed`
    sees the machine as it is."""
    if "judge_installed" not in request.keywords:
        monkeypatch.setattr("videorag.models.judge_available", lambda config=None: False)


@pytest.fixture(autouse=True, scope="session")
def no_remembered_index(tmp_path_factory):
    """Commands without --index see no index remembered by the user's own runs, and the tests'
    indexes (session fixtures included) are not remembered for the user's; nor do they see the
    user's running `videorag serve`s, or show theirs to the user's commands."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
        patch.setenv("XDG_RUNTIME_DIR", str(tmp_path_factory.mktemp("run")))
        patch.delenv("VIDEORAG_INDEX", raising=False)
        yield


@pytest.fixture(scope="session")
def sample_dir(tmp_path_factory) -> tuple[Path, dict]:
    """The demo's how-to videos, rendered once: (folder, {slug: [StepSpan]})."""
    folder = tmp_path_factory.mktemp("samples")
    spans = {h.slug: render(h, folder / f"{h.slug}.mp4") for h in SAMPLES}
    return folder, spans


@pytest.fixture(scope="session")
def short_video(tmp_path_factory) -> tuple[Path, list]:
    folder = tmp_path_factory.mktemp("short")
    path = folder / "make-tea.mp4"
    return path, render(SHORT, path)


@pytest.fixture(scope="session")
def asr():
    from videorag.asr import create_asr
    from videorag.config import IngestConfig
    from videorag.ingest.engines.local import build_streams

    model = create_asr("faster-whisper", streams=build_streams(IngestConfig()))  # as the library makes it
    model.warm_up()
    return model


@pytest.fixture(scope="session")
def embedder():
    from videorag.config import EmbedConfig
    from videorag.embed import create_embedder

    return create_embedder(EmbedConfig())


@pytest.fixture()
def make_rag(tmp_path, asr, embedder):
    """Build a VideoRAG over a fresh index directory with the session's real models."""
    from videorag import Config, VideoRAG

    def build(index_dir: Path | None = None, config: Config | None = None) -> VideoRAG:
        return VideoRAG(index_dir or tmp_path / "index", config or Config(), asr=asr, embedder=embedder)

    return build


@pytest.fixture(scope="session")
def demo_rag(tmp_path_factory, sample_dir, asr, embedder):
    """The sample videos indexed once with the default models."""
    from videorag import Config, VideoRAG

    rag = VideoRAG(tmp_path_factory.mktemp("demo") / "index", Config(), asr=asr, embedder=embedder)
    report = rag.add([sample_dir[0]])
    assert report.count("added") == len(SAMPLES), report.files
    return rag


def copy(src: Path, dst: Path) -> Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dst)
    return dst
