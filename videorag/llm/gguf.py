"""A local GGUF model, served in-process by llama.cpp's own server through `xllamacpp` (a prebuilt
wheel: nothing to compile). Requests and replies are the OpenAI-compatible JSON of the `openai`
backend (`/chat/completions`, `/completions`), so a local model and a model server are driven by
the same code. The server is thread-safe (requests queue) and keeps the prompt of the last
request: a request sharing a prefix with it evaluates only what follows (the judge's question,
asked of one candidate after another).

One server per model file per owner (`local_model`, with the context size of `CONTEXT`, kept in
the owner's `videorag.resources.Resources`): the judge and the generator of one `VideoRAG` share
it, one copy in memory, when they use the same model; closing the owner unloads it.
"""

from __future__ import annotations

import logging
import os
import queue
import secrets
import shutil
import tempfile
import threading
import weakref
from collections.abc import Iterator

from ..errors import GenerationError, ModelNotFoundError
from ..registry import require
from ..resources import Resources, own

log = logging.getLogger(__name__)
_DONE = object()


class LocalModel:
    """A GGUF file behind llama.cpp's server, loaded on first use (`warm_up`)."""

    extra = "judge"  # the videorag extra that installs the runtime
    kind = ""  # what the file is loaded as, in an error message
    hint = "pass a GGUF model file (--model / --rerank-model)"

    def __init__(self, path: str, n_ctx: int = 4096, threads: int | None = None):
        self.path, self.n_ctx = path, n_ctx
        self.threads = threads or os.cpu_count() or 1
        self._server = None
        self._home: weakref.finalize | None = None  # removes the private folder of the server's socket
        self._lock = threading.Lock()

    def warm_up(self, label: str | None = None) -> None:
        """Load the model now (once); `label` says what it is for in the log's "loading …" line."""
        with self._lock:
            if self._server is None:
                log.info("loading %s…", label or os.path.basename(self.path), extra={"stage": True})
                self._server = self._start()

    def _start(self):
        """llama.cpp's server for the file, reachable by this process alone: it serves the
        in-process calls below, and the HTTP listener it always opens is a Unix socket in a
        private folder (mode 0700), behind a key nobody else is told — no TCP port at all."""
        xllamacpp = require("xllamacpp", self.extra)
        params = self._params(xllamacpp)
        home = tempfile.mkdtemp(prefix="videorag-llm-")
        self._home = weakref.finalize(self, shutil.rmtree, home, True)  # removed at close or exit
        params.hostnames = [os.path.join(home, "llama.sock")]
        params.api_keys = [secrets.token_urlsafe(32)]
        try:
            return xllamacpp.Server(params)
        except RuntimeError as exc:
            self._remove_home()
            raise ModelNotFoundError(f"llama.cpp cannot load {self.path}{self.kind} ({exc})", self.hint) from exc

    def _params(self, xllamacpp):
        """The server's settings: a chat and completion model, one request at a time."""
        params = xllamacpp.CommonParams()
        params.model.path = self.path
        params.n_ctx, params.n_parallel, params.warmup, params.verbosity = self.n_ctx, 1, False, -1
        params.cpuparams.n_threads = params.cpuparams_batch.n_threads = self.threads
        return params

    def close(self) -> None:
        """Unload the model (the next request loads it again)."""
        with self._lock:
            self._server = None
            self._remove_home()

    def _remove_home(self) -> None:
        if self._home is not None:
            self._home()
            self._home = None

    def chat(self, body: dict) -> dict:
        """One chat completion (the OpenAI request and reply)."""
        return self._call("handle_chat_completions", body)

    def complete(self, body: dict) -> dict:
        """One plain completion (`prompt` in, `choices[0].text` out)."""
        return self._call("handle_completions", body)

    def stream(self, body: dict, route: str = "handle_chat_completions") -> Iterator[dict]:
        """The reply's chunks as the server sends them (`stream` set for you)."""
        self.warm_up()
        chunks: queue.Queue = queue.Queue()

        def run() -> None:
            try:
                reply = getattr(self._server, route)({**body, "stream": True}, chunks.put)
                if isinstance(reply, dict) and "error" in reply:
                    chunks.put(reply)
            except Exception as exc:  # the request thread hands any failure to the reader
                chunks.put(exc)
            chunks.put(_DONE)

        threading.Thread(target=run, daemon=True, name="videorag-gguf-stream").start()
        while (chunk := chunks.get()) is not _DONE:
            if isinstance(chunk, Exception):
                raise GenerationError(f"llama.cpp failed on {self.path}: {chunk}") from chunk
            yield _checked(chunk, self.path)

    def _call(self, route: str, body: dict) -> dict:
        self.warm_up()
        try:
            reply = getattr(self._server, route)(body)
        except (ValueError, RuntimeError) as exc:
            raise GenerationError(f"llama.cpp refused the request ({exc})") from exc
        return _checked(reply, self.path)


def _checked(reply, path: str) -> dict:
    """The reply, or a GenerationError carrying the server's error (a prompt over the context
    size keeps its token count in `GenerationError.details`)."""
    if isinstance(reply, dict) and "error" not in reply:
        return reply
    error = reply.get("error") if isinstance(reply, dict) else reply
    error = error if isinstance(error, dict) else {"message": str(error)}
    exc = GenerationError(f"llama.cpp ({path}): {error.get('message', error)}")
    exc.details = error
    raise exc


CONTEXT = 4096  # tokens: the generator's prompt and answer; the judge's fit with room to spare


def local_model(path: str, resources: Resources | None = None) -> LocalModel:
    """The owner's one `LocalModel` for a file (loaded on first request)."""
    return own(resources).get(("gguf", path), lambda: LocalModel(path, CONTEXT))
