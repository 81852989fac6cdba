"""What the HTTP API and the MCP server do, over one warm `VideoRAG` (models loaded once, the
index re-checked for other processes' writes on every call). Searches and questions come as
request objects (`videorag.requests`) whose fields go on to the pipeline by name."""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, VideoRAGError
from ..index.location import LocalDir, locate
from ..ingest.discover import inside
from ..pipeline import VideoRAG
from ..requests import AskRequest, SearchRequest
from ..types import clock, search_json

log = logging.getLogger(__name__)
LOOPBACK = ("127.0.0.1", "localhost", "::1")
WRITE_WAIT = 5.0  # seconds an HTTP write waits for a running ingest before answering "busy"


class NotFound(VideoRAGError):
    """A video or job id that does not exist."""


class Forbidden(VideoRAGError):
    """A request the server's configuration does not allow (a path outside the roots)."""


class TooLarge(VideoRAGError):
    """An upload over the server's size limit."""


class Unauthorized(VideoRAGError):
    """A request without the server's token where it needs one."""


@dataclass
class ServeConfig:
    index: str | Path  # a directory or s3://bucket/prefix
    host: str = "127.0.0.1"
    port: int = 8000
    token: str | None = None  # bearer token: writes need it; reads too off loopback
    roots: tuple[Path, ...] = ()  # folders `POST /index` may read (none: paths refused)
    max_upload_bytes: int = 2 << 30
    upload_dir: Path | None = None  # where uploads are stored (default INDEX/uploads)
    ray: str | None = None  # search the index's shards on this Ray cluster ("auto", "local", host:port)
    shard_replicas: int = 1  # replicas of each shard's deployment
    shard_deadline: float = 1.0  # seconds a sharded search waits for its shards (late ones: a partial answer)
    searches: int = 0  # searches run at once, the rest wait their turn (0: one per core; with `ray`, 64)

    def __post_init__(self) -> None:
        where = locate(self.index)  # a directory or s3://…; another scheme is refused here
        self.index = where.path if isinstance(where, LocalDir) else where.uri
        self.roots = tuple(Path(r).expanduser().resolve() for r in self.roots)
        self.upload_dir = Path(self.upload_dir or where.local / "uploads").expanduser()
        if not 0 < self.port < 65536:
            raise ConfigError(f"--port must be in 1..65535, got {self.port}")
        if self.shard_replicas < 1 or self.shard_deadline <= 0:
            raise ConfigError("--shard-replicas must be >= 1 and --shard-deadline > 0")
        if self.searches < 0:
            raise ConfigError(f"--searches must be >= 0 (0: one per core), got {self.searches}")
        if self.public and not self.token:
            raise ConfigError(
                f"--host {self.host} serves beyond this machine without a token",
                "pass --token SECRET (or set VIDEORAG_TOKEN), or bind to 127.0.0.1",
            )

    @property
    def public(self) -> bool:
        """Whether the server is reachable from other machines (then reads need the token too)."""
        if self.host in LOOPBACK:
            return False
        try:
            return not ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return True

    def check_token(self, given: str | None, write: bool) -> None:
        """The one token rule of the HTTP API and MCP over HTTP: writes need the token, and off
        loopback reads do too. Unauthorized when `given` is missing, Forbidden when it is wrong or
        the server has no token (writes disabled)."""
        if not (write or self.public):
            return
        if not self.token:
            raise Forbidden(
                "writes are disabled on this server",
                "start `videorag serve` with --token TOKEN (or VIDEORAG_TOKEN) and send 'Authorization: Bearer TOKEN'",
            )
        if not given:
            raise Unauthorized(
                "this needs the server's token",
                "send 'Authorization: Bearer TOKEN'; the token is set with --token / VIDEORAG_TOKEN",
            )
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            raise Forbidden("wrong token", "send the one set with --token / VIDEORAG_TOKEN")


def _searches(config: ServeConfig) -> int:
    """How many searches run at once. Searches on this box hold the GIL and the cores for most of
    their time: more at once than cores only slow each other down (a 2-core server took 32 ms of
    CPU a search with 32 at once, 20 with 2, and answered 50 a second instead of 44). A search
    of shards on Ray mostly waits on them, so more may run."""
    if config.searches:
        return config.searches
    return 64 if config.ray else os.cpu_count() or 1


def bearer(headers: Mapping[str, str] | None) -> str | None:
    """The token of an `Authorization: Bearer TOKEN` header (case-insensitive `headers`), if any."""
    value = (headers or {}).get("authorization", "")
    if not value.lower().startswith("bearer "):
        return None
    return value[7:].strip() or None


class Service:
    def __init__(self, rag: VideoRAG, config: ServeConfig):
        from .jobs import Jobs

        self.rag = rag
        self.config = config
        self.jobs = Jobs(
            lambda paths, progress, stages: rag.add(paths, progress, roots=self._job_roots(), stages=stages)
        )
        self._generating = threading.Lock()
        self._searching = threading.BoundedSemaphore(_searches(config))
        if rag.judging("ask"):  # loaded now, so the first question does not wait for it
            threading.Thread(target=self._warm_judge, daemon=True, name="videorag-judge-warm-up").start()

    def _warm_judge(self) -> None:
        try:
            self.rag.judge.warm_up()
        except VideoRAGError as exc:  # the first judged request reports it
            log.warning("the judge did not load: %s", exc)

    # -- reads --------------------------------------------------------------------------
    def search(self, request: SearchRequest) -> dict:
        """The search's JSON; each field the request leaves out (None) is the server's setting.
        At most `ServeConfig.searches` run at once; the others wait here in turn."""
        with self._searching:
            return search_json(request.query, self.rag.search(**request.given()))

    def methods(self) -> dict:
        """The registered methods, the default, and the judge: whether it can run here, its
        model, and whether `ask` uses it unless told otherwise."""
        from ..methods import METHODS
        from ..models import judge_available as available

        judge = self.rag.config.search.judge
        return {
            "default": self.rag.config.search.method,
            "methods": METHODS.names(),
            "judge": {
                "available": available(judge.reranker),
                "search": self.rag.judging("search"),
                "ask": self.rag.judging("ask"),
            },
        }

    def ask(self, request: AskRequest) -> dict:
        with self._generating:
            return self.rag.ask(**request.given()).to_dict()

    def ask_events(self, request: AskRequest) -> Iterator[tuple[str, object]]:
        """("token", text) as the answer is generated, then ("citations", [...]), then
        ("done", the whole answer). Generators without token streaming send one token. A bad
        method raises here, before the stream starts (a 4xx, not an error event)."""
        self.rag.method(request.method)
        return self._ask_events(request)

    def _ask_events(self, request: AskRequest) -> Iterator[tuple[str, object]]:
        answer = None
        with self._generating:  # local models are not re-entrant: one answer at a time
            for piece in self.rag.ask_stream(**request.given()):
                if isinstance(piece, str):
                    yield "token", piece
                else:
                    answer = piece
        assert answer is not None  # ask_stream always ends with the Answer
        yield "citations", [c.to_dict() for c in answer.citations]
        yield "done", answer.to_dict()

    def videos(self) -> list[dict]:
        """The indexed videos by path ([] before the first ingest)."""
        if not self.rag.library.exists():
            return []
        rows = self.rag.library.index.videos(["video_id", "path", "duration", "source"]).to_pylist()
        return sorted(({**row, "clock": clock(row["duration"])} for row in rows), key=lambda r: r["path"])

    def video(self, video_id: str) -> dict:
        for row in self.videos():
            if row["video_id"] == video_id:
                return row
        raise NotFound(f"no video {video_id!r} in the index", "GET /videos lists the indexed ones")

    def chapters(self, video_id: str) -> dict:
        """`schemas.Chapters` of an indexed video."""
        from ..chapters import listing

        return listing(self.rag.library.index, self.video(video_id))

    def media_path(self, video_id: str) -> Path:
        """The indexed file of a video: only paths the index holds are ever opened."""
        path = Path(self.video(video_id)["path"])
        if not path.is_file():
            raise NotFound(
                f"video {video_id!r} is indexed but its file {path} is gone", "re-index the folder it moved to"
            )
        return path

    def clip(self, video_id: str, start: str, end: str) -> Path:
        """The span cut out as an MP4 in a private temporary folder, which the caller removes."""
        from ..clip import cut, span

        path = self.media_path(video_id)
        a, b = span(start, end, self.video(video_id)["duration"])
        folder = Path(tempfile.mkdtemp(prefix="videorag-clip-"))
        try:
            return cut(path, a, b, folder / f"{path.stem}-{a:g}-{b:g}.mp4")
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise

    def frame(self, video_id: str, t: float) -> bytes:
        """The JPEG of the video's sampled frame nearest to `t` seconds."""
        self.video(video_id)
        frame = self.rag.frames.frame_near(video_id, t)
        if frame is None:
            raise NotFound(f"video {video_id!r} has no sampled frames", "re-index it")
        return frame.jpeg

    # -- writes ---------------------------------------------------------------------------
    def delete(self, video_id: str) -> dict:
        """Remove a video; busy (an ingest holds the index) after WRITE_WAIT seconds, not forever."""
        self.video(video_id)
        self._unsharded("remove videos")
        with self.rag.location.lock().hold(WRITE_WAIT):
            return {"removed": self.rag.library.remove([video_id])}

    def index_paths(self, paths: list[str]) -> dict:
        """Start an index job over server paths, each inside a configured root."""
        if not paths:
            raise ConfigError("no paths given", 'send {"paths": ["/videos/folder"]}')
        self._unsharded("index videos")
        checked = [str(self.inside_roots(p)) for p in paths]
        return self.jobs.start(checked).to_dict()

    def index_upload(self, name: str, stream, length: int | None = None) -> dict:
        """Store an uploaded file (size-capped) in the upload folder and start a job on it."""
        self._unsharded("index uploads")
        limit = self.config.max_upload_bytes
        if length is not None and length > limit:
            raise TooLarge(
                f"upload of {length} bytes is over the limit of {limit}",
                "index large files from a configured root instead",
            )
        self.uploads.mkdir(parents=True, exist_ok=True)
        target, written = _new_file(self.uploads, _upload_name(name)), 0
        with target.open("wb") as out:
            while block := stream.read(1 << 20):
                written += len(block)
                if written > limit:
                    out.close()
                    target.unlink()
                    raise TooLarge(
                        f"upload is over the limit of {limit} bytes", "index large files from a configured root instead"
                    )
                out.write(block)
        return self.jobs.start([str(target)]).to_dict()

    def _unsharded(self, what: str) -> None:
        """A server searching shards (`--ray`) serves what they held when it started: a write to
        the index would never reach its searches."""
        if self.config.ray:
            raise Forbidden(
                f"this server searches the index's shards on Ray and cannot {what}",
                "write with `videorag index` / `remove`, then `videorag shard` and restart `serve --ray`",
            )

    @property
    def uploads(self) -> Path:
        """The upload folder (`ServeConfig.__post_init__` always sets it)."""
        assert self.config.upload_dir is not None
        return self.config.upload_dir

    def _job_roots(self) -> tuple[Path, ...]:
        return (*self.config.roots, self.uploads.resolve())

    def inside_roots(self, raw: str) -> Path:
        if not self.config.roots:
            raise Forbidden("this server indexes no server paths", "start it with --root FOLDER, or upload the file")
        try:
            path = Path(raw).expanduser().resolve()  # symlinks and `..` resolved before the check
        except (OSError, RuntimeError, ValueError) as exc:  # ~nosuchuser, a NUL byte, a symlink loop
            raise ConfigError(f"{raw!r} is not a usable path ({exc})", "send an absolute path under a root") from exc
        if not inside(path, self.config.roots):
            raise Forbidden(f"{raw} is outside the server's roots", "roots: " + ", ".join(map(str, self.config.roots)))
        if not path.exists():
            raise NotFound(f"{raw} does not exist on the server", "check the path")
        return path

    def close(self) -> None:
        """Stop the index jobs, then release the models the service's `VideoRAG` loaded."""
        self.jobs.shutdown()
        self.rag.close()


def _upload_name(name: str | None) -> str:
    """The file name part of an upload's name: no folders, no NUL, at most 200 bytes."""
    base = Path(str(name or "").replace("\0", "")).name.strip() or "upload"
    stem, suffix = Path(base).stem, Path(base).suffix[:16]
    while len((stem + suffix).encode()) > 200:
        stem = stem[:-1]
    return (stem or "upload") + suffix


def _new_file(folder: Path, name: str) -> Path:
    """Create a new empty file `name` in `folder` (`name-1`, `name-2`… when taken), atomically:
    two uploads of one name never share a file."""
    n = 0
    while True:
        target = folder / (name if n == 0 else f"{Path(name).stem}-{n}{Path(name).suffix}")
        try:
            target.open("xb").close()
            return target
        except FileExistsError:
            n += 1
