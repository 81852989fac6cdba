"""Each JSON shape the server emits is its model in videorag.schemas, to the letter, and the HTTP
API's response model and MCP's output schema are the same model."""
from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from fastapi.testclient import TestClient

from tests.reliability.media import tiny_videos
from tests.test_types import same_shape
from videorag import Config, VideoRAG, schemas
from videorag.embed.hashing import HashingEmbedder
from videorag.requests import AskRequest, SearchRequest
from videorag.serve.app import create_app
from videorag.serve.jobs import Jobs
from videorag.serve.mcp import create_mcp
from videorag.serve.service import ServeConfig, Service
from videorag.types import FileResult, IngestReport

TOKEN = "s3cret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ROUTES = {("GET", "/search"): schemas.SearchResult, ("POST", "/ask"): schemas.Answer,
          ("GET", "/methods"): schemas.Methods, ("POST", "/index"): schemas.Job, ("GET", "/jobs/{job_id}"): schemas.Job,
          ("GET", "/videos"): list[schemas.Video], ("GET", "/videos/{video_id}"): schemas.Video,
          ("DELETE", "/videos/{video_id}"): schemas.Removed, ("GET", "/videos/{video_id}/chapters"): schemas.Chapters}
TOOLS = {"search": schemas.SearchResult, "ask": schemas.Answer, "index": schemas.Job, "job": schemas.Job,
         "list_videos": schemas.VideoList, "chapters": schemas.Chapters}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("shapes")
    tiny_videos(root / "library", 3, seconds=4)
    VideoRAG(root / "index", Config(), embedder=HashingEmbedder()).add([root / "library"])
    return root, root / "index"


@pytest.fixture()
def client(corpus) -> TestClient:
    root, index = corpus
    rag = VideoRAG(index, Config(), embedder=HashingEmbedder())
    return TestClient(create_app(Service(rag, ServeConfig(index, token=TOKEN, roots=(root,)))),
                      base_url="http://127.0.0.1")


def test_http_routes_and_mcp_tools_publish_the_same_models(client):
    routes = {(method, route.path): route.response_model
              for route in client.app.routes if hasattr(route, "response_model") for method in route.methods}
    assert {key: routes[key] for key in ROUTES} == ROUTES
    tools = anyio.run(create_mcp(client.app.state.service).list_tools)
    assert {t.name: t.output_schema for t in tools} == {name: m.model_json_schema() for name, m in TOOLS.items()}
    assert schemas.VideoList.model_fields["videos"].annotation == ROUTES["GET", "/videos"]


def test_openapi_documents_every_shape_and_the_error_body(client):
    doc = client.get("/openapi.json").json()
    assert set(doc["components"]["schemas"]) >= {"SearchResult", "Hit", "Answer", "Citation", "Claim", "Methods",
                                                 "JudgeStatus", "Job", "JobFile", "Video", "Removed", "Error"}
    search = doc["paths"]["/search"]["get"]["responses"]
    assert search["200"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/SearchResult"}
    assert search["4XX"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
    assert "HTTPValidationError" not in doc["components"]["schemas"]  # 422s are `{"detail": "…"}` too
    upload = doc["paths"]["/index"]["post"]["requestBody"]["content"]
    assert set(upload) == {"application/json", "multipart/form-data"}


def test_search_ask_methods_and_videos_are_their_shapes_unchanged_by_the_models(client):
    service = client.app.state.service
    for moments in (False, True):
        body = client.get("/search", params={"q": "kettle", "top_k": 3, "moments": moments}).json()
        same_shape(schemas.SearchResult, body)
        assert body == service.search(SearchRequest("kettle", 3, moments=moments))  # the response model changed no value
    answer = client.post("/ask", json={"question": "how do I boil water?"}).json()
    same_shape(schemas.Answer, answer)
    assert answer == service.ask(AskRequest("how do I boil water?"))
    same_shape(schemas.Methods, client.get("/methods").json())
    same_shape(schemas.JudgeStatus, client.get("/methods").json()["judge"])
    videos = client.get("/videos").json()
    assert videos == service.videos() and len(videos) == 3
    for video in videos:
        same_shape(schemas.Video, video)
        assert client.get(f"/videos/{video['video_id']}").json() == video
        chapters = client.get(f"/videos/{video['video_id']}/chapters").json()
        same_shape(schemas.Chapters, chapters)
        assert chapters == service.chapters(video["video_id"]) and chapters["chapters"][0]["start"] == 0
        for chapter in chapters["chapters"]:
            same_shape(schemas.Chapter, chapter)
    same_shape(schemas.VideoList, {"videos": videos})


def test_streamed_answer_events_are_their_shapes(client):
    with client.stream("POST", "/ask?stream=true", json={"question": "boil water"}) as response:
        events = _events(response.iter_lines())
    for citation in events["citations"]:
        same_shape(schemas.Citation, citation)
    same_shape(schemas.Answer, events["done"])


def test_jobs_and_their_files_are_their_shapes(client, corpus):
    root, _ = corpus
    queued = client.post("/index", json={"paths": [str(root / "library")]}, headers=AUTH)
    assert queued.status_code == 202
    same_shape(schemas.Job, queued.json())
    with client.stream("GET", f"/jobs/{queued.json()['id']}/events") as response:
        progress = [data for event, data in _event_list(response.iter_lines()) if event == "progress"]
    for snapshot in progress:
        same_shape(schemas.Job, snapshot)
    done = client.get(f"/jobs/{queued.json()['id']}").json()
    same_shape(schemas.Job, done)
    assert done["state"] == "done" and done["files"]
    for file in done["files"]:
        same_shape(schemas.JobFile, file)
    report = IngestReport([FileResult("/x.mp4", "failed", error="unreadable", warnings=["no audio"])])
    jobs = Jobs(lambda paths, progress, stages: report)
    *_, finished = jobs.events(jobs.start(["/x"]).id)
    same_shape(schemas.Job, finished)
    same_shape(schemas.JobFile, finished["files"][0])
    assert finished["files"][0]["video_id"] is None


def test_a_removal_and_every_error_are_their_shapes(client, corpus):
    same_shape(schemas.Error, client.get("/videos/nope").json())                   # a domain error (404)
    assert client.get("/videos/nope/chapters").status_code == 404
    same_shape(schemas.Error, client.get("/search").json())                        # a validation error (422)
    same_shape(schemas.Error, client.delete("/videos/nope").json())                # no token (401)
    same_shape(schemas.Error, client.get("/videos/nope/frame", params={"t": -1}).json())  # an HTTPException
    video = client.get("/videos").json()[0]["video_id"]
    removed = client.delete(f"/videos/{video}", headers=AUTH).json()
    same_shape(schemas.Removed, removed)
    assert removed == {"removed": [video]}


def _event_list(lines) -> list[tuple[str, object]]:
    events, name = [], None
    for line in lines:
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            events.append((name, json.loads(line[6:])))
    return events


def _events(lines) -> dict[str, object]:
    return dict(_event_list(lines))
