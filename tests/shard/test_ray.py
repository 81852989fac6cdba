"""`videorag shard` + `serve --ray`: the shards as Ray Serve deployments on a local Ray cluster
(one replica process per shard), searched through the real HTTP app: the hits of the unsharded
index; a killed shard's replica leaves a partial answer that says so (or Serve's replacement
answers), within the deadline."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.reliability.media import tiny_videos
from videorag import Config, VideoRAG
from videorag.embed.hashing import HashingEmbedder
from videorag.errors import ConfigError
from videorag.serve.app import create_app
from videorag.serve.service import ServeConfig, Service
from videorag.shard.ray_serve import replicas, serve_logging
from videorag.shard.serving import sharded
from videorag.shard.split import split

ray = pytest.importorskip("ray")
serve = pytest.importorskip("ray.serve")
QUERIES = ["boil water in a kettle", "kettle", "water", "the first video", "clean the filter"]


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("sharded")
    tiny_videos(root / "library", 4, seconds=6)
    index = root / "index"
    rag = VideoRAG(index, Config(), embedder=HashingEmbedder())
    rag.add([root / "library"])
    found = split(rag.library, 2)
    assert [s["videos"] for s in found["shards"]] == [2, 2]
    return index


def unjudged() -> Config:
    config = Config()
    config.search.judge.enabled = False  # module-wide: made before the per-test no_installed_judge
    return config


def test_an_unreachable_cluster_is_a_clear_error(index):
    ray.shutdown()
    with pytest.raises(ConfigError, match="cannot start or reach Ray at auto.*--ray"):
        VideoRAG(index, unjudged(), embedder=HashingEmbedder(), live=sharded("auto"))


@pytest.fixture(scope="module")
def clients(index):
    def client(rag) -> TestClient:
        return TestClient(create_app(Service(rag, ServeConfig(index))), base_url="http://127.0.0.1")

    on_ray = VideoRAG(index, unjudged(), embedder=HashingEmbedder(), live=sharded("local", replicas=1, deadline=1.0))
    assert len(on_ray.live.router.clients) == 2
    yield client(VideoRAG(index, unjudged(), embedder=HashingEmbedder())), client(on_ray), on_ray
    serve.shutdown()
    ray.shutdown()


def test_the_shards_on_ray_give_the_whole_index_hits(clients):
    whole, sharded, _ = clients
    for query in QUERIES:
        for moments in ("false", "true"):
            params = {"q": query, "top_k": 4, "moments": moments}
            expected = whole.get("/search", params=params).json()
            found = sharded.get("/search", params=params).json()
            assert not found["missing_shards"]
            assert same(found["results"]) == same(expected["results"])  # scores: to float32 rounding


def same(results: list[dict]) -> list[dict]:
    return [{**r, "score": round(r["score"], 5)} for r in results]


def test_a_cluster_started_here_serves_no_dashboard(clients):
    assert ray._private.worker.global_worker.node.address_info["webui_url"] == ""


def test_serve_speaks_on_this_process_only_with_verbose():
    ours, served = logging.getLogger("videorag"), logging.getLogger("ray.serve")
    before = ours.level, served.level
    try:
        for level in (logging.WARNING, logging.INFO):
            ours.setLevel(level)
            serve_logging()
            assert served.level == level
    finally:
        ours.setLevel(before[0])
        served.setLevel(before[1])


def test_ask_on_a_sharded_index_says_it_needs_one_box(clients):
    _, sharded, _ = clients
    answer = sharded.post("/ask", json={"question": "how do I boil water?"})
    assert answer.status_code == 400 and "one box" in answer.text


def test_a_killed_shard_gives_a_partial_answer_within_a_second(clients):
    """Partial and named, unless Serve's replacement replica answered within the deadline (over
    gRPC a call to the dead replica is retried on a new one): then the whole index's hits."""
    whole, sharded, rag = clients
    (replica,) = replicas(rag.live.router.clients[1])
    ray.kill(replica, no_restart=True)
    start = time.perf_counter()
    found = sharded.get("/search", params={"q": "kettle", "top_k": 4}).json()
    assert time.perf_counter() - start < 1.5  # the 1 s deadline, plus the query's own embedding and the HTTP
    if found["missing_shards"]:
        assert found["missing_shards"] == ["1"]
    else:
        expected = whole.get("/search", params={"q": "kettle", "top_k": 4}).json()
        assert same(found["results"]) == same(expected["results"])
