"""The HTTP API through the real app (TestClient) over a small real index."""
from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.reliability.media import tiny_video, tiny_videos
from videorag import Config, VideoRAG
from videorag.embed.hashing import HashingEmbedder
from videorag.errors import ConfigError
from videorag.serve.app import create_app
from videorag.serve.service import ServeConfig, Service
from videorag.types import IngestReport

TOKEN = "s3cret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("served")
    tiny_videos(root / "library", 4, seconds=6)
    index = root / "index"
    VideoRAG(index, Config(), embedder=HashingEmbedder()).add([root / "library"])
    return root, index


def client_for(index: Path, root: Path | None = None, **options) -> TestClient:
    config = ServeConfig(index, token=options.pop("token", TOKEN), roots=(root,) if root else (), **options)
    rag = VideoRAG(index, Config(), embedder=HashingEmbedder())
    return TestClient(create_app(Service(rag, config)), base_url=f"http://{config.host}")


@pytest.fixture()
def client(corpus) -> TestClient:
    root, index = corpus
    return client_for(index, root)


def test_search_and_moments(client):
    body = client.get("/search", params={"q": "boil water in a kettle", "top_k": 3}).json()
    assert body["query"] == "boil water in a kettle"
    assert body["results"][0]["path"].endswith("video-0.mp4")
    assert set(body["results"][0]) == {"video_id", "path", "start", "end", "span", "score", "text", "weak"}
    moments = client.get("/search", params={"q": "kettle", "moments": "true", "top_k": 5}).json()["results"]
    assert moments and all(m["end"] - m["start"] <= 30 for m in moments)


def test_methods_lists_the_registry(client):
    body = client.get("/methods").json()
    assert body["default"] == "textvideorag" and {"bm25", "best", "rag-adapter"} <= set(body["methods"])
    hit = client.get("/search", params={"q": "boil water in a kettle", "method": "bm25"}).json()["results"][0]
    assert hit["path"].endswith("video-0.mp4")


def test_search_and_ask_take_the_judge_per_request(corpus, monkeypatch):
    """`judge=true` routes the search through the judged method (here a judge double that prefers
    passages about salt); `/methods` says whether the judge can run; an answer names its judge."""
    from tests.judge_double import KeywordJudge
    from videorag import models
    from videorag.config import RerankConfig
    from videorag.rerank import RERANKERS

    monkeypatch.setitem(RERANKERS._entries, "keyword-judge", "tests.judge_double:KeywordJudge")
    KeywordJudge.read = []
    root, index = corpus
    client = client_for(index, root)
    rag = client.app.state.service.rag
    rag.config.search.judge.reranker = RerankConfig(backend="keyword-judge")
    rag.config.generate.verify.answerability = False   # this judge double's P(yes) is not the real judge's
    rag.config.generate.backend = "extractive"   # the judge's flags are under test, not the 1.5B's answer
    assert client.get("/methods").json()["judge"] == {"available": False, "search": False, "ask": False}
    plain = client.get("/search", params={"q": "boil water in a kettle"}).json()["results"]
    assert KeywordJudge.read == []
    judged = client.get("/search", params={"q": "boil water in a kettle", "judge": "true"}).json()["results"]
    assert KeywordJudge.read and [h["path"] for h in judged] != [] and set(judged[0]) == set(plain[0])
    monkeypatch.setattr(models, "judge_available", lambda config=None: True)
    assert client.get("/methods").json()["judge"] == {"available": True, "search": False, "ask": True}
    assert client.post("/ask", json={"question": "boil water", "judge": False}).json()["judge"] is None
    answer = client.post("/ask", json={"question": "boil water"}).json()   # the default: judged
    assert answer["judge"] == "keyword-judge" and answer["citations"]


def test_ask_and_streamed_ask(client):
    answer = client.post("/ask", json={"question": "how do I boil water in a kettle"}).json()
    assert answer["answer"] and answer["citations"][0]["path"].endswith("video-0.mp4")
    with client.stream("POST", "/ask", params={"stream": "true"}, json={"question": "boil water kettle"}) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        events = parse_sse("".join(r.iter_text()))
    kinds = [e for e, _ in events]
    assert kinds[0] == "token" and kinds[-2:] == ["citations", "done"]
    assert "".join(d for e, d in events if e == "token") == events[-1][1]["answer"]
    assert events[-2][1] == events[-1][1]["citations"]


def parse_sse(text: str) -> list[tuple[str, object]]:
    events = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((fields["event"], json.loads(fields["data"])))
    return events


def test_index_job_with_progress_then_search_and_delete(corpus, tmp_path):
    root, index = corpus
    folder = root / "incoming"
    tiny_video(folder.mkdir() or folder / "radiator.mp4", seconds=5, seed=5)  # "bleed a radiator"
    client = client_for(index, root)
    job = client.post("/index", json={"paths": [str(folder)]}, headers=AUTH)
    assert job.status_code == 202 and job.json()["state"] in ("queued", "running", "done")
    with client.stream("GET", f"/jobs/{job.json()['id']}/events") as r:
        progress = [d for _, d in parse_sse("".join(r.iter_text()))]
    assert progress[-1]["state"] == "done" and progress[-1]["summary"].startswith("1 added")
    assert progress[-1]["files"][0]["status"] == "added" and progress[-1]["total"] == 1
    assert client.get(f"/jobs/{job.json()['id']}").json()["state"] == "done"
    hit = client.get("/search", params={"q": "bleed a radiator"}).json()["results"][0]
    assert hit["path"].endswith("radiator.mp4")
    assert client.delete(f"/videos/{hit['video_id']}", headers=AUTH).json() == {"removed": [hit["video_id"]]}
    assert client.get(f"/videos/{hit['video_id']}").status_code == 404


def wait_done(client: TestClient, job_id: str) -> dict:
    for _ in range(600):
        job = client.get(f"/jobs/{job_id}").json()
        if job["state"] in ("done", "failed"):
            return job
        time.sleep(0.1)
    raise AssertionError("job did not finish")


def test_upload_and_its_size_limit(corpus, tmp_path):
    _, index = corpus
    video = tiny_video(tmp_path / "grout.mp4", seconds=4, seed=6)
    client = client_for(index, upload_dir=tmp_path / "uploads")
    files = {"file": ("grout.mp4", video.read_bytes(), "video/mp4")}
    job = client.post("/index", files=files, headers=AUTH)
    assert job.status_code == 202
    done = wait_done(client, job.json()["id"])  # a silent video without its subtitles: a per-file error
    assert done["state"] == "done" and done["files"][0]["status"] == "failed"
    assert "no audio track and no subtitles" in done["files"][0]["error"]
    assert (tmp_path / "uploads" / "grout.mp4").read_bytes() == video.read_bytes()
    small = client_for(index, upload_dir=tmp_path / "uploads", max_upload_bytes=1000)
    too_big = small.post("/index", files=files, headers=AUTH)
    assert too_big.status_code == 413 and "over the limit" in too_big.json()["detail"]


def test_media_range_requests_and_frames(client, corpus):
    video = client.get("/videos").json()[0]
    data = Path(video["path"]).read_bytes()
    whole = client.get(f"/videos/{video['video_id']}/media")
    assert whole.status_code == 200 and whole.content == data
    part = client.get(f"/videos/{video['video_id']}/media", headers={"Range": "bytes=100-199"})
    assert part.status_code == 206 and part.content == data[100:200]
    assert part.headers["content-range"] == f"bytes 100-199/{len(data)}"
    tail = client.get(f"/videos/{video['video_id']}/media", headers={"Range": "bytes=-50"})
    assert tail.status_code == 206 and tail.content == data[-50:]
    frame = client.get(f"/videos/{video['video_id']}/frame", params={"t": 2.2})
    assert frame.status_code == 200 and frame.content[:2] == b"\xff\xd8"
    assert client.get(f"/videos/{video['video_id']}/frame", params={"t": -1}).status_code == 422
    assert client.get("/videos/nope/frame", params={"t": 1}).status_code == 404


def test_a_clip_of_a_video_downloads_as_an_mp4(client, corpus):
    import io

    import av

    video = client.get("/videos").json()[0]
    clip = client.get("/clip", params={"video": video["video_id"], "start": "0:01", "end": "2.5"})
    assert clip.status_code == 200 and clip.headers["content-type"] == "video/mp4"
    assert "attachment" in clip.headers["content-disposition"]
    with av.open(io.BytesIO(clip.content)) as cut:
        assert abs(cut.duration / 1e6 - 1.5) <= 0.5
    past = client.get("/clip", params={"video": video["video_id"], "start": "1", "end": "999"})
    assert past.status_code == 400 and "past its end" in past.json()["detail"]
    assert client.get("/clip", params={"video": "nope", "start": "1", "end": "2"}).status_code == 404
    assert not list(Path(tempfile.gettempdir()).glob("videorag-clip-*"))   # nothing left behind


def test_writes_need_the_token(corpus):
    root, index = corpus
    client = client_for(index, root)
    video_id = client.get("/videos").json()[0]["video_id"]
    missing = client.delete(f"/videos/{video_id}")
    assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
    assert "Authorization: Bearer TOKEN" in missing.json()["detail"] and "--token" in missing.json()["detail"]
    wrong = client.delete(f"/videos/{video_id}", headers={"Authorization": "Bearer wrong"})
    assert wrong.status_code == 403 and "wrong token" in wrong.json()["detail"]
    assert client.post("/index", json={"paths": [str(root)]}).status_code == 401
    no_token = client_for(index, root, token=None)
    refused = no_token.delete(f"/videos/{video_id}")
    assert refused.status_code == 403 and "--token" in refused.json()["detail"]
    assert no_token.get("/videos").status_code == 200  # reads stay open on loopback


def test_public_host_needs_a_token_for_reads(corpus):
    _, index = corpus
    with pytest.raises(ConfigError, match="without a token"):
        ServeConfig(index, host="0.0.0.0")
    public = client_for(index, host="0.0.0.0")
    assert public.get("/videos").status_code == 401
    assert public.get("/videos", headers=AUTH).status_code == 200
    video_id = public.get("/videos", headers=AUTH).json()[0]["video_id"]
    assert public.get(f"/videos/{video_id}/frame", params={"t": 1, "token": TOKEN}).status_code == 200


def test_url_token_counts_only_on_media_and_frames(corpus):
    """`?token=` is for <video> and <img>, which cannot send headers; anywhere else it is refused
    with a message saying to send the header (a token in a URL ends up in logs and histories)."""
    root, index = corpus
    client = client_for(index, root)
    absent = {"paths": [str(root / "absent")]}  # were the token accepted: a 404, no job
    for refused in (client.post("/index", params={"token": TOKEN}, json=absent),
                    client.delete("/videos/x", params={"token": TOKEN})):
        assert refused.status_code == 401, refused.text
        assert "?token=" in refused.json()["detail"] and "Authorization: Bearer" in refused.json()["detail"]
    assert client.post("/index", json=absent, headers=AUTH).status_code == 404  # the header counts
    public = client_for(index, host="0.0.0.0")
    read = public.get("/videos", params={"token": TOKEN})
    assert read.status_code == 401 and "Authorization: Bearer" in read.json()["detail"]
    video_id = public.get("/videos", headers=AUTH).json()[0]["video_id"]
    assert public.get(f"/videos/{video_id}/media", params={"token": TOKEN}).status_code == 200
    assert public.get(f"/videos/{video_id}/frame", params={"t": 1, "token": TOKEN}).status_code == 200
    assert public.get(f"/videos/{video_id}/frame", params={"t": 1, "token": "wrong"}).status_code == 403


@pytest.mark.parametrize("path", ["../../etc", "/etc/passwd", "%2e%2e/%2e%2e/etc", "library/../../../etc", "link"])
def test_index_paths_stay_inside_the_roots(corpus, path, tmp_path):
    root, index = corpus
    link = root / "link"
    if not link.exists():
        link.symlink_to("/etc")
    target = path if path.startswith("/") else str(root / path)  # "link" → a symlink to /etc
    reply = client_for(index, root).post("/index", json={"paths": [target]}, headers=AUTH)
    assert reply.status_code in (403, 404), reply.text
    assert "Traceback" not in reply.text


def test_media_never_opens_a_path_from_the_request(client):
    for bad in ("..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd", "....//....//etc"):
        reply = client.get(f"/videos/{bad}/media")
        assert reply.status_code == 404, (bad, reply.text)


def test_malformed_input_is_a_clear_4xx(client):
    bad_json = client.post("/ask", content=b"{not json", headers={"content-type": "application/json"})
    assert bad_json.status_code == 422 and bad_json.json()["detail"]
    assert client.post("/ask", json={"question": ""}).status_code == 422
    assert client.get("/search").status_code == 422
    assert client.get("/search", params={"q": "x", "top_k": 0}).status_code == 422
    wrong_method = client.get("/search", params={"q": "kettle", "method": "nope"})
    assert wrong_method.status_code == 400 and "nope" in wrong_method.json()["detail"]
    assert client.post("/index", content=b"[1,2", headers={**AUTH, "content-type": "application/json"}).status_code == 422
    assert client.get("/jobs/unknown").status_code == 404


def test_a_body_that_is_not_json_says_so_where_and_what_to_send(client):
    """Not "44: JSON decode error": why, at which line and column, and the route's request fields."""
    json_body = {"content-type": "application/json"}
    bad = client.post("/ask", content=b'{"question": "tea",\n "judge": tru}', headers=json_body)
    assert bad.status_code == 422
    assert bad.json()["detail"] == (
        "the request body is not valid JSON (expecting value at line 2, column 11); "
        'send a JSON object such as {"question": "..."} (optional fields: method, judge)'
    )
    empty = client.post("/ask", headers=json_body)
    assert empty.status_code == 422 and empty.json()["detail"].startswith(
        'the request has no body; send a JSON object such as {"question": "..."}'
    )


def test_loopback_server_refuses_other_host_names(client):
    """DNS rebinding: a page on evil.example resolving to 127.0.0.1 must not read the library."""
    assert client.get("/videos", headers={"host": "evil.example"}).status_code == 400
    assert client.get("/videos", headers={"host": "localhost:8000"}).status_code == 200


def test_a_symlinked_file_inside_a_root_that_points_outside_is_refused(corpus, tmp_path):
    root, index = corpus
    outside = tiny_video(tmp_path / "private.mp4", seconds=4, seed=3)
    (root / "links").mkdir(exist_ok=True)
    (root / "links" / "innocent.mp4").symlink_to(outside)
    client = client_for(index, root)
    job = client.post("/index", json={"paths": [str(root / "links")]}, headers=AUTH).json()
    done = wait_done(client, job["id"])
    assert [f["status"] for f in done["files"]] == ["failed"]
    assert "outside the allowed roots" in done["files"][0]["error"]


def test_unusable_paths_are_a_4xx(client):
    for bad in ("~nosuchuser-xyz/videos", "a\u0000b"):
        reply = client.post("/index", json={"paths": [bad]}, headers=AUTH)
        assert reply.status_code in (400, 403, 404), (bad, reply.text)


def test_a_write_during_a_long_ingest_answers_busy(client, monkeypatch, corpus):
    import threading

    import videorag.serve.service as service
    from videorag.index.lock import writer_lock

    monkeypatch.setattr(service, "WRITE_WAIT", 0.3)
    video_id = client.get("/videos").json()[0]["video_id"]
    held, release = threading.Event(), threading.Event()

    def ingest():
        with writer_lock(corpus[1]).hold():
            held.set()
            release.wait(10)

    thread = threading.Thread(target=ingest)
    thread.start()
    held.wait(5)
    try:
        reply = client.delete(f"/videos/{video_id}", headers=AUTH)
    finally:
        release.set()
        thread.join()
    assert reply.status_code == 409 and "being written" in reply.json()["detail"]


def test_finished_jobs_are_forgotten_beyond_a_bound(monkeypatch):
    import videorag.serve.jobs as jobs

    monkeypatch.setattr(jobs, "KEEP_FINISHED", 2)
    runner = jobs.Jobs(lambda paths, progress, stages: IngestReport())
    started = []
    for i in range(4):  # one after another: a job forgotten before we wait on it would be a race
        started.append(runner.start([str(i)]))
        list(runner.events(started[-1].id))  # wait until it is done
    last = runner.start(["last"])
    kept = [j.id for j in started if _known(runner, j.id)]
    assert kept == [started[2].id, started[3].id] and _known(runner, last.id)


def _known(runner, job_id: str) -> bool:
    try:
        runner.get(job_id)
        return True
    except KeyError:
        return False


def test_a_server_searching_shards_refuses_writes_it_would_never_search(corpus, tmp_path):
    root, index = corpus
    client = client_for(index, root, ray="local", upload_dir=tmp_path / "uploads")  # searches are not routed here
    video_id = client.get("/search", params={"q": "boil water"}).json()["results"][0]["video_id"]
    files = {"file": ("grout.mp4", b"not read", "video/mp4")}
    for refused in (client.post("/index", json={"paths": [str(root / "library")]}, headers=AUTH),
                    client.post("/index", files=files, headers=AUTH),
                    client.delete(f"/videos/{video_id}", headers=AUTH)):
        assert refused.status_code == 403 and "videorag shard" in refused.json()["detail"], refused.text
    assert not (tmp_path / "uploads").exists() and client.get(f"/videos/{video_id}").status_code == 200
