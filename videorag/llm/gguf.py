"""A local GGUF model, served in-process by llama.cpp's own server through `xllamacpp` (a prebuilt
wheel: nothing to compile). Requests and replies are the OpenAI-compatible JSON of the `openai`
backend (`/chat/completions`, `/completions`), so a local model and a model server are driven by
the same code. The server is thread-safe (requests queue) and keeps the prompt of each slot's
last request: a request sharing a prefix with it evaluates only what follows (the judge's
question, asked of one candidate after another).

One server per model file per owner (`local_model`, with the context size of `CONTEXT`, kept in
the owner's `videorag.resources.Resources`): the judge and the generator of one `VideoRAG` share
it, one copy in memory, when they use the same model; closing the owner unloads it.

The server has a slot (a prompt evaluated and kept, a window of `n_ctx` tokens) per kind of
request, `SLOTS`: the judge's yes/no question, the claim checks' and the generator's each keep
their own, so none evaluates its instruction again after another ran.
A request names its `Slot`; a slot's `prefix`, the messages each of its requests starts with, is
evaluated once on this machine and kept across processes (`videorag.llm.state`).
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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import GenerationError, ModelNotFoundError
from ..registry import require
from ..resources import Resources, own

if TYPE_CHECKING:
    from .state import States

log = logging.getLogger(__name__)
_DONE = object()
SLOTS = ("judging", "claims", "writing")  # the server's slots, by the kind of request each keeps the prompt of


@dataclass(frozen=True)
class Slot:
    """Which of `SLOTS` a request goes to; `prefix`: the (role, content) messages every request
    of that kind starts with — kept evaluated across processes (`videorag.llm.state`), None for none."""

    name: str
    prefix: tuple[tuple[str, str], ...] | None = None


class LocalModel:
    """A GGUF file behind llama.cpp's server, loaded on first use (`warm_up`)."""

    extra = "judge"  # the videorag extra that installs the runtime
    kind = ""  # what the file is loaded as, in an error message
    hint = "pass a GGUF model file (--model / --rerank-model)"
    slots: tuple[str, ...] = SLOTS
    kept = True  # slots' prefixes kept evaluated across processes (`videorag.llm.state`)

    def __init__(self, path: str, n_ctx: int = 4096, threads: int | None = None):
        self.path, self.n_ctx = path, n_ctx  # `n_ctx`: each slot's window
        self.threads = threads or os.cpu_count() or 1
        self._server = None
        self.home = ""  # the private folder of the server's socket and slot files (`_start`)
        self.key = ""  # the key its listener asks for, told to nobody else (`_start`)
        self._home: weakref.finalize | None = None  # removes the private folder of the server's socket
        self._lock = threading.Lock()
        self._states: States | None = None  # the slots' kept prefixes (`videorag.llm.state.States`), with the server

    def warm_up(self, label: str | None = None) -> None:
        """Load the model now (once); `label` says what it is for in the log's "loading …" line."""
        with self._lock:
            if self._server is None:
                log.info("loading %s…", label or os.path.basename(self.path), extra={"stage": True})
                self._server = self._start()
                if self.kept:
                    from .state import States

                    self._states = States(self)

    def _start(self):
        """llama.cpp's server for the file, reachable by this process alone: it serves the
        in-process calls below, and the HTTP listener it always opens is a Unix socket in a
        private folder (mode 0700), behind a key nobody else is told — no TCP port at all."""
        xllamacpp = require("xllamacpp", self.extra)
        params = self._params(xllamacpp)
        self.home = tempfile.mkdtemp(prefix="videorag-llm-")
        self._home = weakref.finalize(self, shutil.rmtree, self.home, True)  # removed at close or exit
        params.hostnames = [self.socket]
        params.slot_save_path = self.home + os.sep  # slots' states are saved and restored here only
        self.key = secrets.token_urlsafe(32)
        params.api_keys = [self.key]
        try:
            return xllamacpp.Server(params)
        except RuntimeError as exc:
            self._remove_home()
            raise ModelNotFoundError(f"llama.cpp cannot load {self.path}{self.kind} ({exc})", self.hint) from exc

    @property
    def socket(self) -> str:
        """The server's HTTP listener: a Unix socket in the private folder."""
        return os.path.join(self.home, "llama.sock")

    def _params(self, xllamacpp):
        """The server's settings: a chat and completion model, a window of `n_ctx` for each slot."""
        params = xllamacpp.CommonParams()
        params.model.path = self.path
        params.n_ctx, params.n_parallel = self.n_ctx * len(self.slots), len(self.slots)
        params.warmup, params.verbosity = False, -1
        params.cpuparams.n_threads = params.cpuparams_batch.n_threads = self.threads
        return params

    def close(self) -> None:
        """Unload the model (the next request loads it again)."""
        with self._lock:
            self._server = self._states = None
            self._remove_home()

    def _remove_home(self) -> None:
        if self._home is not None:
            self._home()
            self._home = None

    def chat(self, body: dict, slot: Slot | None = None) -> dict:
        """One chat completion (the OpenAI request and reply), in `slot` (None: any)."""
        return self._call("handle_chat_completions", body, slot)

    def complete(self, body: dict, slot: Slot | None = None) -> dict:
        """One plain completion (`prompt` in, `choices[0].text` out), in `slot` (None: any)."""
        return self._call("handle_completions", body, slot)

    def _in(self, body: dict, slot: Slot | None) -> dict:
        """The model loaded and `body` sent to `slot`, its prefix evaluated (or restored) first."""
        self.warm_up()
        if slot is None:
            return body
        if self._states is not None:
            self._states.ready(slot)
        return {**body, "id_slot": self.slots.index(slot.name)}

    def stream(self, body: dict, route: str = "handle_chat_completions", slot: Slot | None = None) -> Iterator[dict]:
        """The reply's chunks as the server sends them (`stream` set for you), in `slot`."""
        body = self._in(body, slot)
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

    def _call(self, route: str, body: dict, slot: Slot | None = None) -> dict:
        body = self._in(body, slot)
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


def runtime() -> str:
    """How llama.cpp is installed, in words for `videorag models`: the portable prebuilt wheel
    (AVX2 at most; `make native` compiles it for a CPU with more), one compiled here, or none."""
    wheel = _wheel()
    if wheel is None:
        return "llama.cpp: not installed (pip install 'videorag[judge]')"
    if "-linux_" in wheel:  # a plain linux tag: built here (PyPI takes only manylinux wheels)
        return "llama.cpp: compiled on this machine (`make native`), for its CPU"
    faster = native_hint()
    return "llama.cpp: the portable prebuilt wheel" + (f" (AVX2 at most); {faster}" if faster else "")


def native_hint() -> str:
    """What compiling llama.cpp here would gain, in words; "" unless the prebuilt wheel runs on a
    CPU with AVX-512 (the wheel stops at AVX2)."""
    wheel = _wheel()
    if wheel is None or "-linux_" in wheel or not _avx512():
        return ""
    return "`make native` compiles llama.cpp for this CPU's AVX-512 (about 6 minutes; answers ~1 s sooner)"


def _wheel() -> str | None:
    """The installed runtime's WHEEL record (its platform tags), None when it is not installed."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        return distribution("xllamacpp").read_text("WHEEL") or ""
    except PackageNotFoundError:
        return None


def _avx512() -> bool:
    try:
        return " avx512f" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


CONTEXT = 4096  # tokens a slot holds: the generator's prompt and answer; the judge's fit with room to spare


def local_model(path: str, resources: Resources | None = None) -> LocalModel:
    """The owner's one `LocalModel` for a file (loaded on first request)."""
    return own(resources).get(("gguf", path), lambda: LocalModel(path, CONTEXT))
