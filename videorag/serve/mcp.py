"""The MCP server: the service's search, ask, index and video list as tools an agent can call.

One server definition (`create_mcp`), two transports: stdio for a local agent (`videorag mcp`,
`run_stdio`) and streamable HTTP at `/mcp` on the FastAPI app (`mount`). Every tool returns the
same JSON as the HTTP API as structured content; search and ask also return text an agent can
quote, citing moments as `path [m:ss–m:ss]`. Domain errors come back as tool errors carrying
their one-line message, never a traceback.

Indexing is a background job: `index` starts it and returns at once; `job` reports its progress
and can wait (at most `MAX_WAIT` seconds per call) for it to finish.
"""
from __future__ import annotations

import functools
import hmac
import json
import logging
import time
from collections.abc import Callable
from contextlib import asynccontextmanager, contextmanager
from typing import Annotated

from pydantic import BaseModel, Field

from ..errors import VideoRAGError
from ..generate.prompt import clock
from ..names import printable
from ..registry import require
from .service import Forbidden, NotFound, Service

require("mcp.server.mcpserver", "serve")  # the mcp SDK 2.x (1.x named the server FastMCP)
from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp.server.mcpserver.exceptions import ToolError  # noqa: E402
from mcp_types import CallToolResult, TextContent, ToolAnnotations  # noqa: E402

MAX_WAIT = 60.0  # seconds one `job` call may wait for a job to finish
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
INSTRUCTIONS = (
    "Search and question answering over an indexed video collection. `search` finds the videos (or, "
    "with moments=true, the moments) that match a query; `ask` answers a question from the best moments "
    "and cites them. Quote citations as given: `path [m:ss–m:ss]` (start–end within the video). "
    "`list_videos` shows what is indexed; `index` adds server folders or files (within the server's "
    "roots) as a background job that `job` reports on.")


# -- the JSON the tools return (the service's dicts; these only publish their schema) ----------
class SearchHit(BaseModel):
    video_id: str
    path: str
    start: float = Field(description="seconds into the video")
    end: float = Field(description="seconds into the video")
    score: float
    text: str = Field(description="what is said (or shown) in this moment")


class SearchResult(BaseModel):
    query: str
    results: list[SearchHit]


class Citation(BaseModel):
    video_id: str
    path: str
    start: float
    end: float


class AskResult(BaseModel):
    question: str
    answer: str
    citations: list[Citation]
    generator: str
    judge: str | None = Field(description="the judge that chose the cited moments (backend:model); null: none")


class JobFile(BaseModel):
    path: str
    status: str = Field(description="added, unchanged, moved or failed")
    video_id: str | None
    error: str | None
    warnings: list[str]


class JobResult(BaseModel):
    id: str
    paths: list[str]
    state: str = Field(description="queued, running, done or failed")
    done: int
    total: int
    current: str | None
    files: list[JobFile]
    summary: str | None
    error: str | None


class Video(BaseModel):
    video_id: str
    path: str
    duration: float
    source: str = Field(description="where the text came from: asr or subtitles")


class VideoList(BaseModel):
    videos: list[Video]


Query = Annotated[str, Field(min_length=1, max_length=2000, description="what to look for, in plain words")]
Question = Annotated[str, Field(min_length=1, max_length=2000, description="a question about the videos")]
TopK = Annotated[int, Field(ge=1, le=100, description="how many results")]
Moments = Annotated[bool, Field(description="true: the best moments across all videos (several per video); "
                                            "false: the best videos, each at its best moment")]
Method = Annotated[str | None, Field(description="retrieval method by name (default: the server's); "
                                                 "an unknown name is an error listing the valid ones")]
Judge = Annotated[bool, Field(description="true: a language model reads the best videos' steps and picks the "
                                          "moments (slower, about 2.5 s; more often the moment that answers)")]
AskJudge = Annotated[bool | None, Field(description="moments chosen by the judge; default: on when the "
                                                    "server has its model")]
Paths = Annotated[list[str], Field(min_length=1, max_length=1000,
                                   description="folders or video files on the server, inside its roots")]
JobId = Annotated[str, Field(min_length=1, max_length=64, description="the id `index` returned")]
Wait = Annotated[float, Field(ge=0, le=MAX_WAIT, description=f"wait up to this many seconds (at most "
                                                             f"{MAX_WAIT:g}) for the job to finish")]


def create_mcp(service: Service, writes: bool = True) -> MCPServer:
    """The MCP server over `service`. With `writes=False` the `index` tool refuses (the HTTP mount
    of a server without a token, like the HTTP API's writes)."""
    from .. import __version__

    with _root_logging_untouched():  # the SDK's constructor configures the root logger
        server = MCPServer("videorag", version=__version__, instructions=INSTRUCTIONS)

    @server.tool(annotations=READ, description=(
        "Search the indexed videos. Returns the best videos (each at its best moment) or, with "
        "moments=true, the best moments; each result has the video's path, start and end in seconds, "
        "a score and the moment's text. Cite a result as `path [m:ss–m:ss]`."))
    @_domain_errors
    def search(query: Query, top_k: TopK = 5, moments: Moments = False,
               method: Method = None, judge: Judge = False) -> Annotated[CallToolResult, SearchResult]:
        result = service.search(query, top_k, method=method, moments=moments, judge=judge)
        return _result(result, _search_text(result))

    @server.tool(annotations=READ, description=(
        "Answer a question from the best-matching moments of the indexed videos. Returns the answer "
        "and its citations (video path, start and end in seconds); quote them as `path [m:ss–m:ss]`."))
    @_domain_errors
    def ask(question: Question, method: Method = None, judge: AskJudge = None) -> Annotated[CallToolResult, AskResult]:
        result = service.ask(question, method=method, judge=judge)
        return _result(result, _ask_text(result))

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                             idempotent_hint=True, open_world_hint=False), description=(
        "Add videos to the index: folders (searched recursively) or files on the server, each inside "
        "one of the server's roots. Starts a background job and returns it at once (state queued); "
        "call `job` with its id to follow it. Files already indexed and unchanged are skipped."))
    @_domain_errors
    def index(paths: Paths) -> Annotated[CallToolResult, JobResult]:
        if not writes:
            raise Forbidden("indexing over HTTP is disabled",
                            "start `videorag serve` with --token (or VIDEORAG_TOKEN) and send it")
        return _result(service.index_paths(paths))

    @server.tool(annotations=READ, description=(
        "An index job's state (queued, running, done, failed) and progress: files done of total, the "
        "current file, per-file results and, when finished, a summary. With wait_seconds, waits that "
        "long at most for the job to finish before answering."))
    @_domain_errors
    def job(job_id: JobId, wait_seconds: Wait = 0.0) -> Annotated[CallToolResult, JobResult]:
        return _result(_wait_for_job(service, job_id, wait_seconds))

    @server.tool(annotations=READ, description=(
        "The indexed videos, by path: id, path, duration in seconds and text source (asr or subtitles)."))
    @_domain_errors
    def list_videos() -> Annotated[CallToolResult, VideoList]:
        return _result({"videos": service.videos()})

    return server


def run_stdio(service: Service) -> None:
    """Serve MCP over stdin/stdout until the client closes stdin. While serving, the SDK points
    file descriptor 1 at stderr, so nothing else can corrupt the protocol stream."""
    try:
        create_mcp(service).run("stdio")
    finally:
        service.close()


def mount(app, service: Service) -> None:
    """Serve the MCP server over streamable HTTP at `/mcp` on the FastAPI `app`.

    Its session manager runs inside the app's lifespan (wrapped here), so the app must be run by
    an ASGI server (or a TestClient used as a context manager). When the service has a token,
    every `/mcp` request needs it (`Authorization: Bearer TOKEN`); without one, the reads are open
    to this machine and `index` refuses, as the HTTP API's writes do.
    """
    from starlette.routing import Route

    token = service.config.token
    server = create_mcp(service, writes=bool(token))
    endpoint = _Endpoint(token)
    app.router.routes.append(Route("/mcp", endpoint=endpoint))
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(asgi_app):
        # A fresh session manager per run: one can be started only once.
        server.streamable_http_app(streamable_http_path="/mcp", host=service.config.host)
        manager = server.session_manager
        async with manager.run():
            endpoint.manager = manager
            try:
                async with inner(asgi_app) as state:
                    yield state
            finally:
                endpoint.manager = None

    app.router.lifespan_context = lifespan


class _Endpoint:
    """The `/mcp` ASGI endpoint: the token check, then the running session manager."""

    def __init__(self, token: str | None):
        self.token = token
        self.manager = None

    async def __call__(self, scope, receive, send) -> None:
        from starlette.responses import JSONResponse

        if self.token and not _bearer_ok(scope, self.token):
            response = JSONResponse({"detail": "MCP over HTTP needs the server's token: send "
                                     "'Authorization: Bearer TOKEN'"}, 401, {"WWW-Authenticate": "Bearer"})
        elif self.manager is None:
            response = JSONResponse({"detail": "MCP is not running: the app's lifespan was not started "
                                     "(run it under uvicorn)"}, 503)
        else:
            await self.manager.handle_request(scope, receive, send)
            return
        await response(scope, receive, send)


def _bearer_ok(scope, token: str) -> bool:
    header = dict(scope.get("headers") or ()).get(b"authorization", b"").decode("latin-1")
    given = header[7:] if header.lower().startswith("bearer ") else ""
    return bool(given) and hmac.compare_digest(given.encode(), token.encode())


def _domain_errors(tool: Callable) -> Callable:
    """A domain error becomes a tool error with its one-line message (no traceback)."""
    @functools.wraps(tool)
    def call(*args, **kwargs):
        try:
            return tool(*args, **kwargs)
        except VideoRAGError as exc:
            raise ToolError(printable(str(exc))) from None

    return call


def _result(structured: dict, text: str | None = None) -> CallToolResult:
    text = json.dumps(structured, ensure_ascii=False) if text is None else text
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def _cite(item: dict) -> str:
    return f"{printable(item['path'])} [{clock(item['start'])}–{clock(item['end'])}]"


def _search_text(result: dict) -> str:
    if not result["results"]:
        return f"No results for {result['query']!r}."
    lines = []
    for rank, hit in enumerate(result["results"], 1):
        lines.append(f"{rank}. {_cite(hit)} (score {hit['score']:.3f})")
        lines.append(f"   {printable(' '.join(hit['text'].split()))}")
    return "\n".join(lines)


def _ask_text(result: dict) -> str:
    sources = [f"[{n}] {_cite(c)}" for n, c in enumerate(result["citations"], 1)]
    return "\n".join([result["answer"], "", "Sources:", *sources] if sources else [result["answer"]])


def _wait_for_job(service: Service, job_id: str, wait: float) -> dict:
    try:
        job = service.jobs.get(job_id)
    except KeyError:
        raise NotFound(f"no job {job_id!r}", "the index tool starts one and returns its id") from None
    deadline = time.monotonic() + wait
    if wait > 0 and not job.finished:
        for snapshot in service.jobs.events(job_id, heartbeat=min(wait, 1.0)):
            if snapshot["state"] in ("done", "failed") or time.monotonic() >= deadline:
                break
    return job.to_dict()


@contextmanager
def _root_logging_untouched():
    """Undo the SDK's `logging.basicConfig` (a root handler and level): the application, not a
    library, decides where logs go (the CLI already logs videorag's to stderr)."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
