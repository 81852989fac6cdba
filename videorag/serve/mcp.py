"""The MCP server: the service's search, ask, index and video list as tools an agent can call.

One server definition (`create_mcp`), two transports: stdio for a local agent (`videorag mcp`,
`run_stdio`) and streamable HTTP at `/mcp` on the FastAPI app (`mount`). Every tool returns the
same JSON as the HTTP API as structured content, its output schema the HTTP API's response model
(`videorag.schemas`); search and ask also return text an agent can quote, citing moments as
`path [m:ss–m:ss]`. Domain errors and bad arguments come back as tool errors carrying a one-line
message, never a traceback.

Over HTTP the HTTP API's token rule holds (`ServeConfig.check_token`): on loopback the read tools
need no token and `index` needs `Authorization: Bearer TOKEN`; off loopback every request needs
it. Over stdio (a local agent that started the server itself) no token is asked.

Indexing is a background job: `index` starts it and returns at once; `job` reports its progress
and can wait (at most `MAX_WAIT` seconds per call) for it to finish.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import time
from collections.abc import Callable, Mapping
from contextlib import asynccontextmanager, contextmanager
from typing import Annotated, Any

from pydantic import Field, ValidationError

from .. import schemas
from ..errors import VideoRAGError
from ..names import printable
from ..registry import require
from ..requests import AskRequest, SearchRequest
from ..types import flag_words, span
from .service import Forbidden, NotFound, ServeConfig, Service, Unauthorized, bearer

require("mcp.server.mcpserver", "serve")  # the mcp SDK 2.x (1.x named the server FastMCP)
from mcp.server.mcpserver import Context, MCPServer  # noqa: E402
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError  # noqa: E402
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager  # noqa: E402
from mcp_types import CallToolResult, TextContent, ToolAnnotations  # noqa: E402

MAX_WAIT = 60.0  # seconds one `job` call may wait for a job to finish
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
INSTRUCTIONS = (
    "Search and question answering over an indexed video collection. `search` finds the videos (or, "
    "with moments=true, the moments) that match a query; `ask` answers a question from the best moments "
    "and cites them. Quote citations as given: `path [m:ss–m:ss]` (start–end within the video). "
    "`list_videos` shows what is indexed, `chapters` a video's topics; `index` adds server folders or "
    "files (within the server's roots) as a background job that `job` reports on."
)
BOUNDS = {
    "greater_than_equal": ("≥", "ge"),
    "greater_than": (">", "gt"),
    "less_than_equal": ("≤", "le"),
    "less_than": ("<", "lt"),
}  # pydantic's error types for numeric bounds: (sign, its ctx key)


# -- the tools' arguments (what they return: `videorag.schemas`, as the HTTP API); search's and
# ask's are their requests' fields (`videorag.requests`, given to the tools by `schemas.takes`)
JobId = Annotated[str, Field(min_length=1, max_length=64, description="the id `index` returned")]
Wait = Annotated[
    float,
    Field(ge=0, le=MAX_WAIT, description=f"wait up to this many seconds (at most {MAX_WAIT:g}) for the job to finish"),
]


class _Server(MCPServer):
    """The SDK's server, its argument errors one line in words (`top_k must be ≥ 1 (got 0)`)
    instead of pydantic's report of several lines and a URL."""

    async def call_tool(self, name, arguments, context=None):
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            raise ToolError(f"invalid arguments for {name}: {_invalid(cause)}") from cause


TOOLS = {  # what each tool does, as an agent reads it
    "search": (
        "Search the indexed videos. Returns the best videos (each at its best moment) or, with "
        "moments=true, the best moments; each result has the video's path, start and end in seconds, "
        "a score and the moment's text. Cite a result as `path [m:ss–m:ss]`."
    ),
    "ask": (
        "Answer a question from the best-matching moments of the indexed videos. Returns the answer, "
        "its citations (video path, start and end in seconds; quote them as `path [m:ss–m:ss]`) and its "
        "claims, each marked supported or not by its cited moments when a verifier checked them; "
        "abstained=true when the videos do not cover the question."
    ),
    "index": (
        "Add videos to the index: folders (searched recursively) or files on the server, each inside "
        "one of the server's roots (its --root folders; files cannot be uploaded over MCP). Starts a "
        "background job and returns it at once (state queued); call `job` with its id to follow it. "
        "Files already indexed and unchanged are skipped. Over HTTP it needs the server's token."
    ),
    "job": (
        "An index job's state (queued, running, done, failed) and progress: files done of total, the "
        "current file, per-file results and, when finished, a summary. With wait_seconds, waits that "
        "long at most for the job to finish before answering."
    ),
    "list_videos": "The indexed videos, by path: id, path, duration in seconds and text source (asr or subtitles).",
    "chapters": (
        "A video's chapters (its id as `list_videos` gives it): its topics in time order, each with a "
        "start and an end in seconds and a short title made of words said in it. Cite one as `path [m:ss–m:ss]`."
    ),
}
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def create_mcp(service: Service, http: bool = False) -> MCPServer:
    """The MCP server over `service`. With `http` (the mount at /mcp) `index` needs the
    server's token, as the HTTP API's writes do; over stdio it needs none."""
    from .. import __version__

    with _root_logging_untouched():  # the SDK's constructor configures the root logger
        server = _Server("videorag", version=__version__, instructions=INSTRUCTIONS)
    _answer_tools(server, service)
    _collection_tools(server, service, http)
    return server


def _answer_tools(server: MCPServer, service: Service) -> None:
    """`search` and `ask`, their arguments made from the request types."""

    @server.tool(annotations=READ, description=TOOLS["search"])
    @_domain_errors
    @schemas.takes(SearchRequest, returns=Annotated[CallToolResult, schemas.SearchResult])
    def search(**fields):
        result = service.search(SearchRequest(**fields))
        return _result(result, _search_text(result))

    @server.tool(annotations=READ, description=TOOLS["ask"])
    @_domain_errors
    @schemas.takes(AskRequest, returns=Annotated[CallToolResult, schemas.Answer])
    def ask(**fields):
        result = service.ask(AskRequest(**fields))
        return _result(result, _ask_text(result))


def _collection_tools(server: MCPServer, service: Service, http: bool) -> None:
    """`index`, `job`, `list_videos` and `chapters`."""

    @server.tool(annotations=WRITE, description=TOOLS["index"])
    @_domain_errors
    def index(paths: schemas.ServerPaths, ctx: Context) -> Annotated[CallToolResult, schemas.Job]:
        if http:
            service.config.check_token(bearer(ctx.headers), write=True)
        return _result(_index_paths(service, paths))

    @server.tool(annotations=READ, description=TOOLS["job"])
    @_domain_errors
    def job(job_id: JobId, wait_seconds: Wait = 0.0) -> Annotated[CallToolResult, schemas.Job]:
        return _result(_wait_for_job(service, job_id, wait_seconds))

    @server.tool(annotations=READ, description=TOOLS["list_videos"])
    @_domain_errors
    def list_videos() -> Annotated[CallToolResult, schemas.VideoList]:
        return _result({"videos": service.videos()})

    @server.tool(annotations=READ, description=TOOLS["chapters"])
    @_domain_errors
    def chapters(video_id: schemas.VideoId) -> Annotated[CallToolResult, schemas.Chapters]:
        found = service.chapters(video_id)
        lines = [f"{printable(found['path'])} [{c['span']}] {printable(c['title'])}" for c in found["chapters"]]
        return _result(found, "\n".join(lines))


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
    an ASGI server (or a TestClient used as a context manager). Tokens as for the HTTP API: off
    loopback every `/mcp` request needs `Authorization: Bearer TOKEN`; on loopback only `index`.
    """
    from starlette.routing import Route

    server = create_mcp(service, http=True)
    endpoint = _Endpoint(service.config)
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
    """The `/mcp` ASGI endpoint: the token check for reads (off loopback), then the running
    session manager. A refusal is a JSON-RPC error: MCP clients show its message."""

    def __init__(self, config: ServeConfig):
        self.config = config
        self.manager: StreamableHTTPSessionManager | None = None

    async def __call__(self, scope, receive, send) -> None:
        from starlette.datastructures import Headers

        try:
            self.config.check_token(bearer(Headers(scope=scope)), write=False)
        except (Unauthorized, Forbidden) as exc:
            await _refusal(401 if isinstance(exc, Unauthorized) else 403, str(exc))(scope, receive, send)
            return
        if self.manager is None:
            await _refusal(503, "MCP is not running: the app's lifespan was not started (run it under uvicorn)")(
                scope, receive, send
            )
            return
        await self.manager.handle_request(scope, receive, send)


def _refusal(status: int, message: str):
    """An HTTP error whose body MCP clients read as a JSON-RPC error (the SDK's client shows its
    message instead of "Server returned an error response"); `detail` as in the HTTP API."""
    from starlette.responses import JSONResponse

    body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": message}, "detail": message}
    return JSONResponse(body, status, {"WWW-Authenticate": "Bearer"} if status == 401 else None)


def _index_paths(service: Service, paths: list[str]) -> dict:
    """Start an index job; a server without roots says what an MCP client can do (not upload)."""
    if not service.config.roots:
        raise Forbidden(
            "this server indexes no server paths",
            "files cannot be uploaded over MCP: restart "
            "`videorag mcp` or `videorag serve` with --root FOLDER, then pass paths under it",
        )
    return service.index_paths(paths)


def _invalid(exc: ValidationError) -> str:
    """Pydantic's report on a tool's arguments as one line in words, no URL."""
    return "; ".join(_problem(error) for error in exc.errors(include_url=False))


def _problem(error: Mapping[str, Any]) -> str:
    where = ".".join(map(str, error["loc"])) or "arguments"
    if error["type"] == "missing":
        return f"{where} is required"
    if error["type"] in BOUNDS:
        sign, key = BOUNDS[error["type"]]
        words = f"must be {sign} {error['ctx'][key]}"
    else:  # "Input should be a valid integer, unable to parse…" → "must be a valid integer"
        words = re.sub(r"^\w+ should ", "must ", error["msg"]).split(",")[0].replace(" after validation", "")
    shown = json.dumps(error["input"], ensure_ascii=False, default=str)
    return f"{where} {words} (got {printable(shown if len(shown) <= 60 else shown[:59] + '…')})"


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
    return f"{printable(item['path'])} [{span(item['start'], item['end'])}]"


def _search_text(result: dict) -> str:
    if not result["results"]:
        return f"No results for {result['query']!r}."
    lines = []
    for rank, hit in enumerate(result["results"], 1):
        lines.append(f"{rank}. {_cite(hit)} (score {hit['score']:.3f})")
        lines.append(f"   {printable(' '.join(hit['text'].split()))}")
    return "\n".join(lines)


def _ask_text(result: dict) -> str:
    """The answer; under it the claims its cited moments do not support, and its sources. An
    answer that abstained says so."""
    if result["abstained"]:
        return f"{result['answer']} (Abstained: the indexed videos do not cover this question.)"
    unsupported = [
        f"- {c['text']} ({flag_words(c.get('flag'))}; support {c['support']:.2f})"
        for c in result["claims"]
        if c["supported"] is False
    ]
    sources = [f"[{n}] {_cite(c)}" for n, c in enumerate(result["citations"], 1)]
    lines = [result["answer"]]
    if unsupported:
        lines += ["", "Unsupported:", *unsupported]
    return "\n".join([*lines, "", "Sources:", *sources] if sources else lines)


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
