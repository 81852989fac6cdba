"""The MCP server through real transports: `videorag mcp` over stdio as a subprocess, and the
streamable-HTTP mount at /mcp in a real uvicorn server, each over a small real index."""
from __future__ import annotations

import shutil
import sys
import threading
from pathlib import Path

import anyio
import httpx2
import numpy as np
import pytest
import uvicorn
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.reliability.media import tiny_video, tiny_videos
from videorag import Config, VideoRAG
from videorag.config import GenerateConfig, VerifyConfig
from videorag.embed.hashing import HashingEmbedder
from videorag.serve.app import create_app
from videorag.serve.mcp import create_mcp
from videorag.serve.service import ServeConfig, Service
from videorag.types import Answer

REPO = Path(__file__).resolve().parents[2]
TOOLS = {"search", "ask", "index", "job", "list_videos", "chapters"}
TOKEN = "s3cret"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, Path]:
    """(root, index): six silent videos with subtitles ("boil water in a kettle" is video-0)."""
    root = tmp_path_factory.mktemp("mcp")
    tiny_videos(root / "library", 6)
    VideoRAG(root / "index", Config(), embedder=HashingEmbedder()).add([root / "library"])
    return root, root / "index"


def call(client: Client, tool: str, **arguments):
    return client.call_tool(tool, arguments)


def test_stdio_tools_search_videos_errors_and_an_index_job(corpus, tmp_path):
    root, shared = corpus
    index = shutil.copytree(shared, tmp_path / "index")  # this test adds a video
    tiny_video((root / "incoming").mkdir() or root / "incoming" / "guitar.mp4", seed=7)  # "tune a guitar string"
    server = StdioServerParameters(command=sys.executable, cwd=REPO, args=[
        "-m", "videorag.cli", "mcp", "--index", str(index), "--embed-backend", "hashing", "--root", str(root)])

    async def session() -> None:
        with (tmp_path / "server.log").open("w") as errlog, anyio.fail_after(60):
            async with Client(stdio_client(server, errlog=errlog)) as client:
                await conversation(client, root)

    anyio.run(session)


async def conversation(client: Client, root: Path) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    assert all(t.description and t.output_schema for t in tools.values())
    judge = tools["search"].input_schema["properties"]["judge"]
    assert {"type": "boolean"} in judge["anyOf"] and judge["default"] is None   # left out: the server's setting
    assert "judge" in tools["ask"].input_schema["properties"] and "judge" in tools["ask"].output_schema["properties"]

    found = await call(client, "search", query="kettle", top_k=3)
    assert not found.is_error
    best = found.structured_content["results"][0]
    assert best["path"].endswith("video-0.mp4") and "kettle" in best["text"]
    assert set(best) == {"video_id", "path", "start", "end", "span", "score", "text", "weak"}
    assert found.content[0].text.startswith(f"1. {best['path']} [0:0")  # path [m:ss–m:ss]

    videos = (await call(client, "list_videos")).structured_content["videos"]
    assert len(videos) == 6 and {v["source"] for v in videos} == {"subtitles"}
    chapters = await call(client, "chapters", video_id=videos[0]["video_id"])
    assert not chapters.is_error and chapters.structured_content["chapters"][0]["start"] == 0
    assert chapters.content[0].text.startswith(f"{videos[0]['path']} [0:00")
    unknown = await call(client, "chapters", video_id="nope")
    assert unknown.is_error and "no video 'nope'" in unknown.content[0].text

    refused = await call(client, "index", paths=["/etc"])
    assert refused.is_error
    assert "/etc is outside the server's roots" in refused.content[0].text
    assert "Traceback" not in refused.content[0].text

    started = await call(client, "index", paths=[str(root / "incoming")])
    assert not started.is_error and started.structured_content["state"] in ("queued", "running", "done")
    job = (await call(client, "job", job_id=started.structured_content["id"], wait_seconds=30)).structured_content
    assert job["state"] == "done", job
    assert [f["status"] for f in job["files"]] == ["added"]
    assert len((await call(client, "list_videos")).structured_content["videos"]) == 7
    guitar = (await call(client, "search", query="tune a guitar string", top_k=1)).structured_content
    assert guitar["results"][0]["path"].endswith("guitar.mp4")


class Served:
    """The app (with the MCP mount) in a real uvicorn server on a free loopback port."""

    def __init__(self, service: Service):
        app = create_app(service)  # with the MCP mount at /mcp
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        for _ in range(500):
            if self.server.started:
                break
            threading.Event().wait(0.01)
        assert self.server.started, "uvicorn did not start"
        port = self.server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/mcp"

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def service_for(index: Path, root: Path | None, token: str | None, host: str = "127.0.0.1") -> Service:
    return Service(VideoRAG(index, Config(), embedder=HashingEmbedder()),
                   ServeConfig(index, host=host, token=token, roots=(root,) if root else ()))


def http_session(url: str, headers: dict, talk) -> None:
    async def run() -> None:
        with anyio.fail_after(30):
            async with httpx2.AsyncClient(headers=headers) as http:
                async with Client(streamable_http_client(url, http_client=http)) as client:
                    await talk(client)

    anyio.run(run)


def in_memory(service: Service, talk) -> None:
    async def run() -> None:
        with anyio.fail_after(30):
            async with Client(create_mcp(service)) as client:
                await talk(client)

    anyio.run(run)


def test_http_mount_on_loopback_reads_freely_and_index_needs_the_token(corpus):
    """The HTTP API's rule: on loopback reads need no token, writes (`index`) do; a refusal says
    what to send."""
    root, index = corpus
    with Served(service_for(index, root, TOKEN)) as url:
        async def without(client: Client) -> None:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            found = await call(client, "search", query="boil water in a kettle", moments=True)
            assert found.structured_content["results"][0]["path"].endswith("video-0.mp4")
            refused = await call(client, "index", paths=[str(root / "library")])
            assert refused.is_error and "Authorization: Bearer TOKEN" in refused.content[0].text
            assert "--token" in refused.content[0].text

        async def wrong(client: Client) -> None:
            refused = await call(client, "index", paths=[str(root / "library")])
            assert refused.is_error and "wrong token" in refused.content[0].text

        async def right(client: Client) -> None:
            answer = await call(client, "ask", question="how do I boil water in a kettle?")
            assert answer.structured_content["citations"][0]["path"].endswith("video-0.mp4")
            assert "Sources:\n[1] " in answer.content[0].text
            past_the_token = await call(client, "index", paths=["/etc"])  # refused by the roots, not the token
            assert "/etc is outside the server's roots" in past_the_token.content[0].text

        http_session(url, {}, without)
        http_session(url, {"Authorization": "Bearer wrong"}, wrong)
        http_session(url, {"Authorization": f"Bearer {TOKEN}"}, right)


def test_http_mount_off_loopback_needs_the_token_and_says_so(corpus):
    root, index = corpus
    with Served(service_for(index, root, TOKEN, host="0.0.0.0")) as url:
        refused = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
        assert "Authorization: Bearer TOKEN" in refused.json()["error"]["message"] == refused.json()["detail"]

        async def nothing(client: Client) -> None:
            raise AssertionError("connected without the token")

        with pytest.raises(BaseExceptionGroup) as failed:  # the SDK's client shows the server's words
            http_session(url, {}, nothing)
        assert failed.group_contains(MCPError, match="Authorization: Bearer TOKEN", depth=None)

        async def talk(client: Client) -> None:
            found = await call(client, "search", query="boil water in a kettle")
            assert found.structured_content["results"][0]["path"].endswith("video-0.mp4")

        http_session(url, {"Authorization": f"Bearer {TOKEN}"}, talk)


def test_http_mount_without_a_token_reads_but_does_not_index(corpus):
    root, index = corpus
    with Served(service_for(index, root, None)) as url:
        async def talk(client: Client) -> None:
            videos = await call(client, "list_videos")
            assert len(videos.structured_content["videos"]) == 6
            refused = await call(client, "index", paths=[str(root / "library")])
            assert refused.is_error and "writes are disabled" in refused.content[0].text
            assert "--token" in refused.content[0].text

        http_session(url, {}, talk)


@pytest.mark.parametrize("tool, arguments, expected", [
    ("search", {"query": "kettle", "top_k": 0}, "top_k must be ≥ 1 (got 0)"),
    ("search", {"query": "kettle", "top_k": "five"}, 'top_k must be a valid integer (got "five")'),
    ("search", {"top_k": 101}, "query is required; top_k must be ≤ 100 (got 101)"),
    ("index", {"paths": []}, "paths must have at least 1 item (got [])"),
])
def test_argument_errors_are_one_line_in_words(corpus, tool, arguments, expected):
    root, index = corpus

    async def talk(client: Client) -> None:
        refused = await call(client, tool, **arguments)
        assert refused.is_error
        assert refused.content[0].text == f"invalid arguments for {tool}: {expected}"

    in_memory(service_for(index, root, None), talk)


def test_index_errors_say_what_an_mcp_client_can_do(corpus):
    """MCP cannot upload: a server without roots says to start it with --root and pass paths."""
    root, index = corpus

    async def no_roots(client: Client) -> None:
        text = (await call(client, "index", paths=[str(root / "library")])).content[0].text
        assert "--root FOLDER" in text and "pass paths under it" in text and "upload the file" not in text

    async def outside(client: Client) -> None:
        text = (await call(client, "index", paths=["/etc"])).content[0].text
        assert "/etc is outside the server's roots" in text and str(root) in text

    in_memory(service_for(index, None, None), no_roots)
    in_memory(service_for(index, root, None), outside)


def test_ask_returns_its_claims_unverified_without_a_judge(corpus):
    """No judge installed: the answer's sentences come back as claims, support unknown."""
    root, index = corpus

    async def talk(client: Client) -> None:
        ask = next(t for t in (await client.list_tools()).tools if t.name == "ask")
        assert {"claims", "abstained"} <= set(ask.output_schema["required"])
        answer = await call(client, "ask", question="how do I boil water in a kettle?")
        result = answer.structured_content
        assert result["abstained"] is False and result["claims"], result
        for claim in result["claims"]:
            assert claim["text"] in result["answer"] and claim["citations"] == list(range(1, len(result["citations"]) + 1))
            assert claim["support"] is None and claim["supported"] is None
        assert answer.content[0].text.startswith(f"{result['answer']}\n\nSources:\n[1] ")
        assert "nsupported" not in answer.content[0].text and "Abstained" not in answer.content[0].text

    in_memory(service_for(index, root, None), talk)


class Scripted:
    """A generator double: answers `text`, citing every moment it is given."""

    name = "scripted"

    def __init__(self, text: str):
        self.text = text

    def generate(self, question: str, evidence: list) -> Answer:
        return Answer(question, self.text, [ev.citation for ev in evidence], self.name)


class Verifier:
    """A judge double for the verifier: a claim about juggling is unsupported (0.12), any other
    supported (0.9)."""

    def probabilities(self, asks: list) -> np.ndarray:
        return np.array([0.12 if "Claim: Juggle" in text else 0.9 for text, _ in asks])


class Verified(VideoRAG):
    """The pipeline with the judge double verifying its answers."""

    judge = Verifier()


def scripted_service(index: Path, text: str) -> Service:
    config = Config(generate=GenerateConfig(verify=VerifyConfig(enabled=True)))
    return Service(Verified(index, config, embedder=HashingEmbedder(), generator=Scripted(text)), ServeConfig(index))


def test_ask_marks_the_claims_its_moments_do_not_support(corpus):
    _, index = corpus
    service = scripted_service(index, "Boil the water in a kettle [1]. Juggle three oranges while it heats [1].")

    async def talk(client: Client) -> None:
        answer = await call(client, "ask", question="how do I boil water in a kettle?")
        result = answer.structured_content
        assert result["abstained"] is False and len(result["citations"]) == 1
        assert [{k: v for k, v in c.items() if k != "checks"} for c in result["claims"]] == [
            {"text": "Boil the water in a kettle.", "citations": [1], "support": 0.9, "supported": True, "flag": None},
            {"text": "Juggle three oranges while it heats.", "citations": [1], "support": 0.12, "supported": False,
             "flag": "not_said"}]
        assert all(set(c["checks"]) == {"answers", "says", "overlap", "best"} for c in result["claims"])
        assert answer.content[0].text.startswith(
            f"{result['answer']}\n\nUnsupported:\n"
            "- Juggle three oranges while it heats. (its cited moments do not say this; support 0.12)\n\nSources:\n[1] ")

    in_memory(service, talk)


def test_ask_says_when_the_videos_do_not_cover_the_question(corpus):
    _, index = corpus

    async def talk(client: Client) -> None:
        answer = await call(client, "ask", question="how do I juggle three oranges?")
        assert not answer.is_error
        result = answer.structured_content
        assert result["abstained"] is True and result["answer"] == "The videos do not cover this."
        assert result["citations"] == [] and result["claims"] == []
        assert answer.content[0].text == ("The videos do not cover this. (Abstained: the indexed videos do not "
                                          "cover this question.)")

    in_memory(scripted_service(index, "NOT COVERED"), talk)
