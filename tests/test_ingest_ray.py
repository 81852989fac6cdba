"""`--engine ray`: ingest on a local Ray runtime started in-process gives the index the local
engine gives (same videos, units and vectors), hashes files on the workers, and reports bad
files the same way."""
from __future__ import annotations

import numpy as np
import pytest

from videorag import Config, VideoRAG
from videorag.config import IngestConfig

from conftest import copy

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def ray_runtime():
    yield
    ray.shutdown()


@pytest.fixture()
def videos(tmp_path, sample_dir):
    folder, _ = sample_dir
    chosen = sorted(folder.glob("*.mp4"))[:2]
    for path in chosen:
        copy(path, tmp_path / "videos" / path.name)
    (tmp_path / "videos" / "broken.mp4").write_bytes(b"not a video at all")
    return tmp_path / "videos"


def _ray_config() -> Config:
    return Config(ingest=IngestConfig(engine="ray", ray_workers=2), show_progress=False)


def _table(rag, name: str, columns: list[str]) -> list[dict]:
    rows = rag.index._tables[name].to_arrow().select(columns).to_pylist()
    return sorted(rows, key=lambda r: tuple(str(r[c]) for c in columns))


def test_an_unreachable_cluster_is_a_clear_error(tmp_path, videos):
    from videorag.errors import ConfigError

    ray.shutdown()
    rag = VideoRAG(tmp_path / "ray", Config(ingest=IngestConfig(engine="ray", ray_address="auto")))
    with pytest.raises(ConfigError, match="cannot start or reach Ray at auto.*--address"):
        rag.add([videos])


@pytest.mark.slow
def test_ray_engine_builds_the_index_the_local_engine_builds(tmp_path, videos, make_rag, ray_runtime):
    local = make_rag(tmp_path / "local")
    local_report = local.add([videos])
    distributed = VideoRAG(tmp_path / "ray", _ray_config())
    ray_report = distributed.add([videos])

    status = lambda report: sorted((f.path, f.status, f.video_id) for f in report.files)  # noqa: E731
    assert status(ray_report) == status(local_report)
    assert ray_report.count("added") == 2 and ray_report.count("failed") == 1
    failed = next(f for f in ray_report.files if f.status == "failed")
    assert failed.error == next(f for f in local_report.files if f.status == "failed").error

    keys = ["video_id", "kind", "start", "end", "text"]
    assert _table(distributed, "units", keys) == _table(local, "units", keys)
    assert _table(distributed, "videos", ["video_id", "path", "duration", "source"]) == \
        _table(local, "videos", ["video_id", "path", "duration", "source"])
    vectors = lambda rag: np.array([r["vector"] for r in _table(rag, "units", keys + ["vector"])])  # noqa: E731
    np.testing.assert_allclose(vectors(distributed), vectors(local), atol=1e-4)
    assert len(distributed.index._tables["frames"].to_arrow()) == len(local.index._tables["frames"].to_arrow())
    hit = distributed.search("how do I boil water")[0]
    assert hit.video_id == local.search("how do I boil water")[0].video_id


@pytest.mark.slow
def test_ray_engine_hashes_on_workers_and_finds_copies_and_nothing_new(tmp_path, videos, ray_runtime):
    rag = VideoRAG(tmp_path / "ray", _ray_config())
    rag.add([videos])
    first = sorted(videos.glob("*.mp4"))[0]
    copy(first, videos / "again" / first.name)
    report = rag.add([videos])
    assert report.count("added") == 0
    again = next(f for f in report.files if "again" in f.path)
    assert again.status == "unchanged" and again.error.startswith("copy of")
    assert len(rag.index._tables["videos"].to_arrow()) == 2
