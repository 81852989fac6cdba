"""`--engine ray`: ingest on a local Ray runtime started in-process gives the index the local
engine gives (same videos, units and vectors, transcripts up to a word or two: see
`assert_same_units`), hashes files on the workers, and reports bad files the same way."""
from __future__ import annotations

from collections import Counter, defaultdict

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
    rows = rag.library.index._tables[name].to_arrow().select(columns).to_pylist()
    return sorted(rows, key=lambda r: tuple(str(r[c]) for c in columns))


def overlap(a: str, b: str) -> float:
    """The words two texts share (counted with repeats) over the longer one's words."""
    x, y = Counter(a.lower().split()), Counter(b.lower().split())
    return sum((x & y).values()) / max(x.total(), y.total(), 1)


def _grouped(units: list[dict]) -> dict[tuple, str]:
    """Each (video, kind)'s units' texts in time order, one string."""
    texts = defaultdict(list)
    for u in sorted(units, key=lambda u: u["start"]):
        texts[u["video_id"], u["kind"]].append(u["text"])
    return {key: " ".join(parts) for key, parts in texts.items()}


def assert_same_units(built: list[dict], expected: list[dict]) -> None:
    """`built` holds the units `expected` holds, up to what floating point may change between
    processes (Whisper then hears a word or two differently, "porous" as "poros"): the same
    videos and kinds, as many units of each (± 10 %), transcripts ≥ 90 % the same words, and
    the same vector wherever a unit's times and text are the same."""
    ours, theirs = _grouped(built), _grouped(expected)
    assert ours.keys() == theirs.keys()
    count = Counter((u["video_id"], u["kind"]) for u in built)
    for key, n in Counter((u["video_id"], u["kind"]) for u in expected).items():
        assert abs(count[key] - n) <= max(1, n // 10), (key, count[key], n)
        assert overlap(ours[key], theirs[key]) >= 0.9, (key, ours[key], theirs[key])
    same = lambda u: (u["video_id"], u["kind"], u["start"], u["end"], u["text"])  # noqa: E731
    vectors = {same(u): u["vector"] for u in expected}
    pairs = [(u["vector"], vectors[same(u)]) for u in built if same(u) in vectors]
    if pairs:   # where Whisper heard the same words at the same times, the same vector
        np.testing.assert_allclose(*map(np.array, zip(*pairs)), atol=1e-4)


def test_units_compare_up_to_a_few_words_but_not_another_index():
    def unit(video, start, text, vector=(1.0, 0.0)):
        return {"video_id": video, "kind": "segment", "start": start, "end": start + 1, "text": text,
                "vector": list(vector)}

    words = "wrap the porous stone in a cloth over coffee grounds and let it dry for a day"
    expected = [unit("a", 0, words), unit("a", 1, "then seal it"), unit("b", 0, "boil the water")]
    heard = [unit("a", 0, words.replace("porous", "poros"), (0.0, 1.0)), *expected[1:]]
    assert_same_units(heard, expected)
    for other in ([*expected[:2]],                                                    # a video missing
                  [unit(u["video_id"], u["start"], u["text"], (0.0, 1.0)) for u in expected],  # another embedder
                  [unit("a", 0, "something else entirely"), *expected[1:]],           # another transcript
                  [*expected, unit("b", 1, "more"), unit("b", 2, "and more")]):        # other segments
        with pytest.raises(AssertionError):
            assert_same_units(other, expected)


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

    keys = ["video_id", "kind", "start", "end", "text", "vector"]
    assert_same_units(_table(distributed, "units", keys), _table(local, "units", keys))
    assert _table(distributed, "videos", ["video_id", "path", "duration", "source"]) == \
        _table(local, "videos", ["video_id", "path", "duration", "source"])
    assert len(distributed.library.index._tables["frames"].to_arrow()) == len(local.library.index._tables["frames"].to_arrow())
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
    assert len(rag.library.index._tables["videos"].to_arrow()) == 2
