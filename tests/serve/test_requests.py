"""Each request type (`videorag.requests`) is the one declaration of its operation's parameters:
the HTTP API's, the MCP tools' and the command line's are made from it — the same names, rules,
descriptions and defaults — and the service hands its fields to the pipeline by name. So a server
configured to judge judges every search that does not say otherwise, however it is asked."""
from __future__ import annotations

import argparse
import inspect
import os
import threading
import time
from pathlib import Path

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client

from tests.judge_double import KeywordJudge
from tests.reliability.media import tiny_videos
from videorag import Config, VideoRAG
from videorag.cli.parser import build_parser
from videorag.config import RerankConfig
from videorag.errors import ConfigError
from videorag.embed.hashing import HashingEmbedder
from videorag.options import CONFIG, SERVE
from videorag.requests import OPERATIONS, AskRequest, SearchRequest, params
from videorag.serve.app import create_app
from videorag.serve.mcp import create_mcp
from videorag.serve.service import ServeConfig, Service

QUERY = "boil water in a kettle"
OWN = {"help", "json", "no_server", "index", "verbose", "settings"}   # the commands' arguments that are no request's


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("requests")
    tiny_videos(root / "library", 4, seconds=6)
    VideoRAG(root / "index", Config(), embedder=HashingEmbedder()).add([root / "library"])
    return root / "index"


def judging_service(index: Path, monkeypatch) -> Service:
    """A service whose configuration judges searches (`videorag serve --judge`), its judge the
    keyword double."""
    from videorag.rerank import RERANKERS

    monkeypatch.setitem(RERANKERS._entries, "keyword-judge", "tests.judge_double:KeywordJudge")
    config = Config()
    config.search.judge.enabled = True
    config.search.judge.reranker = RerankConfig(backend="keyword-judge")
    return Service(VideoRAG(index, config, embedder=HashingEmbedder()), ServeConfig(index))


def judged(search) -> bool:
    """Whether `search()` made the judge read passages."""
    KeywordJudge.read = []
    search()
    return bool(KeywordJudge.read)


def mcp_search(service: Service, **arguments) -> None:
    async def run() -> None:
        with anyio.fail_after(30):
            async with Client(create_mcp(service)) as client:
                found = await client.call_tool("search", {"query": QUERY, **arguments})
                assert not found.is_error and found.structured_content["results"], found

    anyio.run(run)


def test_a_server_configured_to_judge_judges_the_searches_that_do_not_say(index, monkeypatch):
    service = judging_service(index, monkeypatch)
    client = TestClient(create_app(service), base_url="http://127.0.0.1")
    assert client.get("/methods").json()["judge"]["search"] is True   # what /methods says is what is done
    assert judged(lambda: client.get("/search", params={"q": QUERY}).raise_for_status())
    assert judged(lambda: mcp_search(service))
    assert not judged(lambda: client.get("/search", params={"q": QUERY, "judge": "false"}).raise_for_status())
    assert not judged(lambda: mcp_search(service, judge=False))


def _cli_arguments(command: str) -> dict[str, argparse.Action]:
    """{dest: action} of the command's arguments that come from neither config table nor itself."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    tables = {o.dest for table in (CONFIG, SERVE) for o in table.options if command in o.commands}
    return {a.dest: a for a in sub._actions if a.dest not in OWN | tables}


@pytest.mark.parametrize("command", sorted(OPERATIONS))
def test_http_mcp_and_the_command_line_take_exactly_the_request_fields(index, command):
    request_type, fields = OPERATIONS[command], params(OPERATIONS[command])
    service = Service(VideoRAG(index, Config(), embedder=HashingEmbedder()), ServeConfig(index))
    doc = TestClient(create_app(service), base_url="http://127.0.0.1").get("/openapi.json").json()
    if command == "search":
        http = {p["name"]: {**p["schema"], "description": p["description"], "required": p["required"]}
                for p in doc["paths"]["/search"]["get"]["parameters"]}
        assert list(http) == [p.alias or p.name for p in fields]
    else:
        body = doc["components"]["schemas"]["AskRequest"]
        assert doc["paths"]["/ask"]["post"]["requestBody"]["content"]["application/json"]["schema"] == \
            {"$ref": "#/components/schemas/AskRequest"}
        http = {name: {**schema, "required": name in body["required"]} for name, schema in body["properties"].items()}
        assert list(http) == [p.name for p in fields]
    tool = {t.name: t for t in anyio.run(create_mcp(service).list_tools)}[command].input_schema
    assert list(tool["properties"]) == [p.name for p in fields]
    assert tool["required"] == [p.name for p in fields if p.required]
    cli = _cli_arguments(command)
    assert sorted(cli) == sorted(p.name for p in fields)
    for p, wire in zip(fields, http.values()):
        schema = tool["properties"][p.name]
        assert wire["description"] == schema["description"] == p.description == cli[p.name].help.split("; the valid")[0]
        assert wire["required"] == p.required and cli[p.name].required == p.required
        if not p.required:   # left out: the server's setting
            assert wire.get("default") is None and schema["default"] is None and cli[p.name].default is None
        for bound in ("maximum", "minimum", "maxLength", "minLength"):   # the same rules (within anyOf when nullable)
            assert _bound(wire, bound) == _bound(schema, bound)
    assert _bound(tool["properties"][fields[0].name], "maxLength") == 2000


def _bound(schema: dict, key: str):
    return next((s[key] for s in [schema, *schema.get("anyOf", [])] if key in s), None)


def test_the_request_fields_are_the_pipelines_keyword_arguments():
    """The service passes a request's fields on by name: each is a keyword of the pipeline's call."""
    for request_type, calls in ((SearchRequest, [VideoRAG.search]), (AskRequest, [VideoRAG.ask, VideoRAG.ask_stream])):
        for call in calls:
            assert {p.name for p in params(request_type)} <= set(inspect.signature(call).parameters), call


class Recording:
    """A pipeline double recording the keyword arguments of its calls."""

    def __init__(self):
        self.calls = []

    def judging(self, operation, judge=None) -> bool:
        return False

    def search(self, *args, **kwargs) -> list:
        self.calls.append(kwargs)
        return []


def test_the_service_passes_on_only_the_fields_a_request_sets():
    """Left out (None), the pipeline's own default decides: `moments` stays False, `top_k` and
    `judge` the configuration's."""
    rag = Recording()
    service = Service(rag, ServeConfig(Path("ix")))
    service.search(SearchRequest("kettle"))
    service.search(SearchRequest("kettle", top_k=3, moments=True, judge=False))
    assert rag.calls == [{"query": "kettle"}, {"query": "kettle", "top_k": 3, "moments": True, "judge": False}]


class Overlapping(Recording):
    """Searches that take a while, counting how many run at once."""

    def __init__(self):
        super().__init__()
        self.running = self.most = 0
        self.lock = threading.Lock()

    def search(self, *args, **kwargs) -> list:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(0.05)
        with self.lock:
            self.running -= 1
        return super().search(*args, **kwargs)


@pytest.mark.parametrize("searches", [1, 2])
def test_at_most_the_configured_number_of_searches_run_at_once(searches):
    """More searches at once than cores only slow each other down: the rest wait their turn."""
    rag = Overlapping()
    service = Service(rag, ServeConfig(Path("ix"), searches=searches))
    threads = [threading.Thread(target=service.search, args=(SearchRequest("kettle"),)) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert rag.most == searches and len(rag.calls) == 6


def test_searches_default_to_one_per_core_and_more_for_shards_on_ray():
    from videorag.serve.service import _searches

    assert _searches(ServeConfig(Path("ix"))) == (os.cpu_count() or 1)
    assert _searches(ServeConfig(Path("ix"), ray="auto")) > (os.cpu_count() or 1)
    with pytest.raises(ConfigError, match="--searches"):
        ServeConfig(Path("ix"), searches=-1)
