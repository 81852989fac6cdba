"""The FastAPI app: JSON API (OpenAPI at /docs and /redoc, their assets served from the
fastapi-offline package, no CDN: not even ReDoc's logo), Server-Sent Events, media with Range,
the web page."""

from __future__ import annotations

import json
import logging
import math
import shutil
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, NamedTuple

from fastapi import Depends, FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.middleware.trustedhost import TrustedHostMiddleware

from .. import __version__, requests, schemas
from ..errors import ConfigError, GenerationError, IndexBusy, IndexError_, MissingDependencyError, VideoRAGError
from ..registry import require
from .invalid import body_model, first_line, in_words
from .service import LOOPBACK, Forbidden, NotFound, Service, TooLarge, Unauthorized, bearer

require("fastapi_offline", "serve")  # /docs and /redoc without a CDN
import fastapi_offline  # noqa: E402
from fastapi_offline import FastAPIOffline  # noqa: E402

log = logging.getLogger(__name__)
WEB = Path(__file__).parent / "web"
REDOC_JS = Path(fastapi_offline.__file__).parent / "static" / "redoc.standalone.js"
REDOC_LOGO = b"https://cdn.redoc.ly/redoc/logo-mini.svg"  # its footer's <img>, hidden when it fails to load
STATUS = {
    NotFound: 404,
    Unauthorized: 401,
    Forbidden: 403,
    TooLarge: 413,
    IndexBusy: 409,
    GenerationError: 502,
    MissingDependencyError: 501,
    ConfigError: 400,
    IndexError_: 400,
}  # the first match wins


ERRORS = {
    "4XX": {"model": schemas.Error, "description": "refused or failed: `detail` says why, in one line"},
    "5XX": {
        "model": schemas.Error,
        "description": "failed on the server's side: a missing dependency, the "
        "generator, or unexpected (the server's log has the rest)",
    },
}
SSE = {"text/event-stream": {"schema": {"type": "string"}}}
UPLOAD = {
    "required": True,
    "content": {  # POST /index reads its body itself: JSON or a multipart upload
        "application/json": {"schema": schemas.IndexRequest.model_json_schema()},
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "required": ["file"],
                "properties": {
                    "file": {"type": "string", "format": "binary", "description": "a video file to store and index"}
                },
            }
        },
    },
}


class Guards(NamedTuple):
    """The token checks a route can depend on (`ServeConfig.check_token`)."""

    read: Any
    write: Any
    media: Any  # reads whose URL may carry ?token= (<video> and <img> send no header)


def create_app(service: Service) -> FastAPI:
    app = FastAPIOffline(
        title="videorag",
        summary="Search and question answering over a video collection, with timestamped citations",
        version=__version__,
        responses=ERRORS,
        redoc_url=None,
    )
    _redoc(app)
    app.state.service = service
    if not service.config.public:  # a loopback server answers to loopback names only (no DNS rebinding)
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=[*LOOPBACK, service.config.host, "[::1]"])
    _errors(app)
    guards = Guards(
        Depends(_auth(service, write=False)),
        Depends(_auth(service, write=True)),
        Depends(_auth(service, write=False, url_token=True)),
    )
    for add_routes in (_search_routes, _job_routes, _video_routes):
        add_routes(app, service, guards)
    app.add_api_route("/", _page, include_in_schema=False)

    from .mcp import mount

    mount(app, service)  # the same tools over streamable HTTP at /mcp
    return app


def _query(param: requests.Param):
    """A request field as a URL query parameter: its wire name (`alias`), rules and description."""
    return Annotated[param.annotation, Query(alias=param.alias, description=param.description, **param.bounds)]


def _search_routes(app: FastAPI, service: Service, guards: Guards) -> None:
    @schemas.takes(requests.SearchRequest, _query)
    async def search(**fields):
        """Best videos (each at its best moment), or with `moments` the best moments; with
        `judge`, a language model reads the best videos' steps and picks the moments (~2.5 s).
        A parameter left out is the server's setting (`GET /methods` says whether it judges)."""
        # async, the search on a worker thread: its answer is checked on the loop, not on a second
        # worker thread (each hand-over between threads costs a busy server milliseconds)
        return await run_in_threadpool(service.search, requests.SearchRequest(**fields))

    app.get("/search", dependencies=[guards.read], response_model=schemas.SearchResult)(search)

    @app.get("/methods", dependencies=[guards.read], response_model=schemas.Methods)
    def methods():
        """The registered retrieval methods, the server's default, and whether the judge can run."""
        return service.methods()

    @app.post("/ask", dependencies=[guards.read], response_model=schemas.Answer, responses={200: {"content": SSE}})
    def ask(body: schemas.AskRequest, stream: bool = False):  # type: ignore[valid-type]  # a model made at import
        """The answer with citations; `?stream=true`: SSE events token…, citations, done."""
        request = requests.AskRequest(**dict(body))
        return _sse(service.ask_events(request)) if stream else service.ask(request)


def _job_routes(app: FastAPI, service: Service, guards: Guards) -> None:
    @app.post(
        "/index",
        dependencies=[guards.write],
        status_code=202,
        response_model=schemas.Job,
        openapi_extra={"requestBody": UPLOAD},
    )
    async def index(request: Request):
        """JSON `{"paths": [...]}` (server paths under the roots) or a multipart `file` upload."""
        kind = request.headers.get("content-type", "")
        if kind.startswith("multipart/form-data"):
            return await _upload(service, request)
        try:
            body = schemas.IndexRequest.model_validate_json(await request.body())
        except ValueError as exc:
            raise HTTPException(
                422, f'expected JSON {{"paths": [...]}} or a multipart upload: {first_line(exc)}'
            ) from None
        return service.index_paths(body.paths)

    @app.get("/jobs/{job_id}", dependencies=[guards.read], response_model=schemas.Job)
    def job(job_id: str):
        return _job(service, job_id).to_dict()

    @app.get(
        "/jobs/{job_id}/events",
        dependencies=[guards.read],
        response_class=StreamingResponse,
        responses={200: {"content": SSE, "description": "`progress` events, each a Job"}},
    )
    def job_events(job_id: str):
        """SSE: a `progress` event per change (files done / total, current file, per-file results)."""
        _job(service, job_id)
        return _sse(("progress", snapshot) for snapshot in service.jobs.events(job_id))


def _video_routes(app: FastAPI, service: Service, guards: Guards) -> None:
    @app.get("/videos", dependencies=[guards.read], response_model=list[schemas.Video])
    def videos():
        return service.videos()

    @app.get("/videos/{video_id}", dependencies=[guards.read], response_model=schemas.Video)
    def video(video_id: str):
        return service.video(video_id)

    @app.get("/videos/{video_id}/chapters", dependencies=[guards.read], response_model=schemas.Chapters)
    def chapters(video_id: str):
        """The video's chapters: its topics, each with a start, an end and a short title."""
        return service.chapters(video_id)

    @app.delete("/videos/{video_id}", dependencies=[guards.write], response_model=schemas.Removed)
    def delete(video_id: str):
        return service.delete(video_id)

    @app.get(
        "/videos/{video_id}/media",
        dependencies=[guards.media],
        response_class=FileResponse,
        responses={200: {"content": {"video/*": {}}}},
    )
    def media(video_id: str):
        """The video file (HTTP Range supported: browsers seek with it)."""
        path = service.media_path(video_id)
        return FileResponse(path, media_type=_media_type(path), filename=path.name, content_disposition_type="inline")

    @app.get(
        "/clip",
        dependencies=[guards.media],
        response_class=FileResponse,
        responses={200: {"content": {"video/mp4": {}}}},
    )
    def clip(video: str, start: str, end: str):
        """A span of a video as an MP4 download (`start`, `end`: seconds or m:ss; re-encoded, so
        within a frame of the span, audio kept); a span past the end, reversed or over 10 minutes
        is refused in words."""
        path = service.clip(video, start, end)
        removed = BackgroundTask(shutil.rmtree, path.parent, True)  # once sent
        return FileResponse(path, media_type="video/mp4", filename=path.name, background=removed)

    @app.get(
        "/videos/{video_id}/frame",
        dependencies=[guards.media],
        response_class=Response,
        responses={200: {"content": {"image/jpeg": {}}}},
    )
    def frame(video_id: str, t: float = Query(0.0)):
        """A JPEG of the moment at `t` seconds (the index's nearest sampled frame)."""
        if not math.isfinite(t) or t < 0:
            raise HTTPException(422, "t must be a finite number of seconds >= 0")
        return Response(service.frame(video_id, t), media_type="image/jpeg", headers={"Cache-Control": "max-age=3600"})


def _page():
    return FileResponse(WEB / "index.html", media_type="text/html")


def _redoc(app: FastAPI) -> None:
    """/redoc as fastapi-offline makes it, on a copy of its ReDoc script whose footer logo is an
    image that fails at once (and so hides itself, as offline) instead of one from a CDN."""
    from fastapi.openapi.docs import get_redoc_html

    @app.get("/redoc", include_in_schema=False)
    def redoc(request: Request):
        root = request.scope.get("root_path", "")
        return get_redoc_html(
            openapi_url=root + app.openapi_url,
            title=app.title + " - ReDoc",
            redoc_js_url=root + "/redoc.standalone.js",
            with_google_fonts=False,
            redoc_favicon_url=root + "/static-offline-docs/favicon.png",
        )

    @app.get("/redoc.standalone.js", include_in_schema=False)
    def script():
        return Response(_offline_redoc(), media_type="text/javascript", headers={"Cache-Control": "max-age=3600"})


@lru_cache(maxsize=1)
def _offline_redoc() -> bytes:
    return REDOC_JS.read_bytes().replace(REDOC_LOGO, b"data:,")


def _auth(service: Service, write: bool, url_token: bool = False):
    """A dependency checking the bearer token where one is needed (`ServeConfig.check_token`).
    With `url_token` (media and frames: browsers' <video>/<img> cannot send headers) `?token=`
    counts too; elsewhere only the header does, so a token is not left in logs and histories."""
    config = service.config

    async def check(request: Request) -> None:  # async: no I/O, so not worth a worker thread
        given = bearer(request.headers) or (request.query_params.get("token") if url_token else None)
        try:
            config.check_token(given, write)
        except Unauthorized:
            if url_token or "token" not in request.query_params:
                raise
            raise Unauthorized(
                "?token= counts only on the media and frame URLs", "send the token as 'Authorization: Bearer TOKEN'"
            ) from None

    return check


def _errors(app: FastAPI) -> None:
    @app.exception_handler(VideoRAGError)
    async def domain(request: Request, exc: VideoRAGError):
        status = next((code for kind, code in STATUS.items() if isinstance(exc, kind)), 400)
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return _error(status, str(exc), headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError):
        return _error(422, in_words(exc, body_model(request)))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception):
        log.error("unexpected failure on %s %s", request.method, request.url.path, exc_info=exc)
        return _error(500, f"internal error ({exc.__class__.__name__}); see the server's log")


def _error(status: int, detail: str, headers: dict | None = None) -> JSONResponse:
    return JSONResponse(schemas.Error(detail=detail).model_dump(), status_code=status, headers=headers)


def _job(service: Service, job_id: str):
    try:
        return service.jobs.get(job_id)
    except KeyError:
        raise NotFound(f"no job {job_id!r}", "POST /index starts one") from None


async def _upload(service: Service, request: Request) -> dict:
    from starlette.concurrency import run_in_threadpool

    limit = service.config.max_upload_bytes
    if not request.headers.get("content-length", "").isdigit():  # no chunked uploads: no size known
        raise HTTPException(411, "uploads need a Content-Length header")
    length = int(request.headers["content-length"])
    if length > limit + (1 << 20):
        raise TooLarge(
            f"upload of {length} bytes is over the limit of {limit}", "index large files from a configured root instead"
        )
    form = await request.form(max_files=1, max_fields=4)
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise HTTPException(422, "multipart upload needs a 'file' field")
    try:
        return await run_in_threadpool(service.index_upload, upload.filename or "", upload.file, upload.size)
    finally:
        await upload.close()


def _sse(events: Iterator[tuple[str, object]]) -> StreamingResponse:
    def lines():
        try:
            for event, data in events:
                yield f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
        except VideoRAGError as exc:
            yield f"event: error\ndata: {json.dumps(str(exc))}\n\n"
        except Exception as exc:  # the stream has begun: the client gets an error event, the log the rest
            log.error("stream failed", exc_info=exc)
            yield f"event: error\ndata: {json.dumps(f'internal error ({exc.__class__.__name__})')}\n\n"

    return StreamingResponse(
        lines(), media_type="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    )


def _media_type(path: Path) -> str:
    return {
        ".mp4": "video/mp4",
        ".webm": "video/webm",
        ".mkv": "video/x-matroska",
        ".mov": "video/quicktime",
        ".avi": "video/x-msvideo",
    }.get(path.suffix.lower(), "application/octet-stream")
