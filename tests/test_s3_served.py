"""`videorag serve --index s3://bucket/prefix`: the service and its HTTP API over an index on S3
(moto's S3 server on 127.0.0.1, as in `test_s3_index.py`) list its videos and answer searches."""
from __future__ import annotations

from fastapi.testclient import TestClient

from tests.reliability.media import tiny_videos
from tests.test_s3_index import BUCKET, s3, s3_server  # noqa: F401 (the fixtures)
from videorag import Config, VideoRAG
from videorag.embed.hashing import HashingEmbedder
from videorag.requests import SearchRequest
from videorag.serve.app import create_app
from videorag.serve.service import ServeConfig, Service

TOKEN = "s3cret"


def test_a_served_s3_index_lists_its_videos_and_answers_searches_over_http(s3, tmp_path):
    uri = f"s3://{BUCKET}/idx-served"
    library = tmp_path / "library"
    assert VideoRAG(uri, Config(), embedder=HashingEmbedder()).add(tiny_videos(library, 3, seconds=6)).count(
        "added") == 3
    config = ServeConfig(uri, token=TOKEN)
    assert str(config.index) == uri   # not a local path named "s3:/..."
    service = Service(VideoRAG(uri, Config(), embedder=HashingEmbedder()), config)
    assert [v["path"].rsplit("/", 1)[-1] for v in service.videos()] == ["video-0.mp4", "video-1.mp4", "video-2.mp4"]
    found = service.search(SearchRequest("patch a bicycle tube", 3))["results"]
    assert found and found[0]["path"].endswith("video-1.mp4")

    client = TestClient(create_app(service), base_url=f"http://{config.host}")
    body = client.get("/search", params={"q": "boil water in a kettle", "top_k": 3}).json()
    assert body["results"] and body["results"][0]["path"].endswith("video-0.mp4")
    videos = client.get("/videos").json()
    assert len(videos) == 3 and {v["video_id"] for v in videos} >= {body["results"][0]["video_id"]}
    assert client.get(f"/videos/{videos[0]['video_id']}").json()["path"] == videos[0]["path"]
