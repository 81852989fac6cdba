"""The `videorag serve` processes running on this machine, so a command line can hand its question
to one instead of loading the models again.

Each server writes where it listens to `serve-PID.json` in `folder()` ($XDG_RUNTIME_DIR/videorag,
else the cache folder) while it runs (`announce`, `withdraw`); `find` gives the newest one serving
an index whose process is alive (a file a killed server left behind is removed); `Served` sends
it a search or a question. Imports nothing heavy: the command line checks before loading anything.
"""

from __future__ import annotations

import json
import logging
import os
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from ..errors import VideoRAGError
from ..where import absolute

log = logging.getLogger(__name__)
TIMEOUT = 900.0  # seconds a question may take on the server (a long answer on a small CPU)


def folder() -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return Path(runtime) / "videorag"
    from ..models import cache_root

    return cache_root()


def index_key(index) -> str:
    """An index location as every process names it: a folder resolved, a URL as it is."""
    return absolute(os.path.expanduser(str(index)))


def announce(config) -> Path | None:
    """Write where the server of `config` (`ServeConfig`) listens; the file, None when it cannot
    be written (the server runs anyway, unseen by command lines)."""
    host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(config.host, config.host)
    host = f"[{host}]" if ":" in host else host
    entry = {
        "pid": os.getpid(),
        "url": f"http://{host}:{config.port}",
        "index": index_key(config.index),
        "public": config.public,
        "started": time.time(),
    }
    path = folder() / f"serve-{os.getpid()}.json"
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        (part := path.with_suffix(".part")).write_text(json.dumps(entry))
        os.replace(part, path)
    except OSError as exc:
        log.warning("cannot write %s (%s): command lines will not hand their questions to this server", path, exc)
        return None
    return path


def withdraw(path: Path | None) -> None:
    if path is not None:
        path.unlink(missing_ok=True)


@dataclass(frozen=True)
class Served:
    """A running `videorag serve` (one `serve-PID.json`)."""

    pid: int
    url: str
    index: str
    public: bool = False
    started: float = 0.0

    @property
    def where(self) -> str:
        return f"{self.url.removeprefix('http://')} (pid {self.pid})"

    def call(self, route: str, body: dict | None) -> dict:
        """The JSON reply to `route` (with its query string), `body` POSTed when given
        (`videorag.cli.handoff.http_call` makes both); ConnectionError when the server cannot be
        reached (the caller answers itself), a VideoRAGError with the server's reason when it
        refused or failed."""
        headers = {"Content-Type": "application/json"}
        if token := os.environ.get("VIDEORAG_TOKEN"):
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + route, data=data, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as reply:
                return json.loads(reply.read())
        except urllib.error.HTTPError as exc:
            raise VideoRAGError(
                f"the videorag serve at {self.where} answered {exc.code}: {_detail(exc)}",
                "--no-server answers in this process",
            ) from exc
        except (urllib.error.URLError, ConnectionError) as exc:
            raise ConnectionError(str(getattr(exc, "reason", exc))) from exc
        except TimeoutError as exc:
            raise VideoRAGError(
                f"the videorag serve at {self.where} did not answer within {TIMEOUT:.0f} s",
                "--no-server answers in this process",
            ) from exc


def find(index) -> Served | None:
    """The newest running server of `index` this process may read from, None when there is none."""
    key, found = index_key(index), []
    for path in folder().glob("serve-*.json"):
        served = _read(path)
        if served is None or not _alive(served.pid):
            path.unlink(missing_ok=True)  # a server killed before it could withdraw
        elif served.index == key and (not served.public or os.environ.get("VIDEORAG_TOKEN")):
            found.append(served)
    return max(found, key=lambda s: s.started, default=None)


def _read(path: Path) -> Served | None:
    try:
        entry = json.loads(path.read_text())
        return Served(
            int(entry["pid"]),
            str(entry["url"]),
            str(entry["index"]),
            bool(entry.get("public")),
            float(entry.get("started", 0.0)),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process has that pid now: ours ended
        return False
    return True


def _detail(exc: urllib.error.HTTPError) -> str:
    try:
        return str(json.loads(exc.read(4096)).get("detail"))
    except (OSError, ValueError, AttributeError):
        return exc.reason or "no reason given"
