"""An OpenAI-compatible HTTP server (vLLM, Ollama, OpenAI, llama.cpp's server): the requests of
the generators, the judge and the captioner, made here once. A reply of any shape or size ends
either in the value asked for or in one GenerationError whose message is a single line quoting at
most QUOTE_CHARS of the reply.

Base URL from the caller's config / $OPENAI_BASE_URL (default http://localhost:8000/v1), key from
$OPENAI_API_KEY. A server that refuses a request's images is remembered as text-only for the
process (`takes_images`: a fact about that server, not a model held in memory)."""

from __future__ import annotations

import base64
import http.client
import json
import logging
import os
import re
import reprlib
import threading
import urllib.error
import urllib.request
from typing import Any

from ..errors import GenerationError

log = logging.getLogger(__name__)
DEFAULT_BASE_URL = "http://localhost:8000/v1"


# -- servers that take no images (remembered for the process, said once) -------------------------
IMAGES = re.compile(r"image|vision|multimodal|mmproj", re.IGNORECASE)  # in a refusal of a request's images
_text_only: set[tuple[str, str]] = set()
_text_only_lock = threading.Lock()


def takes_images(url: str, model: str) -> bool:
    """False once the server at `url` refused images for `model` in this process."""
    return (url, model) not in _text_only


def has_images(request: dict) -> bool:
    """Whether a chat request carries an image part."""
    return any(
        isinstance(m.get("content"), list) and any(p.get("type") == "image_url" for p in m["content"])
        for m in request.get("messages", ())
    )


def refused_images(exc: GenerationError, url: str, model: str, warn: bool = True) -> bool:
    """Whether `exc`, the failure of a request with images, is the server refusing images
    (llama.cpp without --mmproj: "image input is not supported"; OpenAI: "image_url is only
    supported by certain models"). If so the server is text-only from now on: a warning says so
    once (unless not `warn`)."""
    if not IMAGES.search(getattr(exc, "reply", "")):
        return False
    with _text_only_lock:
        first = (url, model) not in _text_only
        _text_only.add((url, model))
    if first and warn:
        log.warning(
            "%s (model %s) takes no images (%s): it is asked in text alone from now on (answers read "
            "transcripts, the judge leaves frames unjudged); for frames, serve a vision-language model "
            "(llama.cpp with --mmproj, a vision model in Ollama or vLLM)",
            url,
            model,
            exc.reply,
        )
    return True


# -- requests ------------------------------------------------------------------------------------
MAX_REPLY_BYTES = 8 * 2**20  # longer replies are refused after reading this many bytes
QUOTE_CHARS = 200  # of a reply, quoted in an error message
QUOTE_BYTES = 4 * (QUOTE_CHARS + 1)  # enough UTF-8 for QUOTE_CHARS + 1 characters (so "…" shows)
API_HINT = "check that the server speaks the OpenAI chat API"
_SHORT = reprlib.Repr()  # bounded display of a decoded reply, however deep or long
_SHORT.maxstring = _SHORT.maxother = 80


def server_url(configured: str | None) -> str:
    """The server URL: configured, else $OPENAI_BASE_URL, else DEFAULT_BASE_URL."""
    return (configured or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")


def image_part(jpeg: bytes) -> dict:
    """A JPEG as an `image_url` content part (a data URL)."""
    return {
        "type": "image_url",
        "image_url": {"url": "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")},
    }


def chat(url: str, body: dict, timeout: float) -> str:
    """The stripped reply text of one chat completion request to the server at `url`."""
    return reply_text(call(url, "/chat/completions", body, timeout), url + "/chat/completions")


def reply_text(reply: object, url: str) -> str:
    """The stripped text of a decoded chat completion, or a GenerationError quoting the reply."""
    content = pick(reply, "choices", 0, "message", "content")
    if not isinstance(content, str):
        raise GenerationError(f"{url} sent no choices[0].message.content text: {shown(reply)}", API_HINT)
    return content.strip()


def first_model(url: str, timeout: float) -> str:
    """The id of the first model the server lists."""
    reply = call(url, "/models", None, timeout)
    model = pick(reply, "data", 0, "id")
    if not isinstance(model, str) or not model:
        raise GenerationError(
            f"{url}/models names no model (no data[0].id text): {shown(reply)}", "set --model or $OPENAI_MODEL"
        )
    return model


def call(url: str, route: str, body: dict | None, timeout: float) -> object:
    """POST `body` as JSON to `url + route` (GET when None); the decoded JSON reply.
    The key, when the server wants one, comes from $OPENAI_API_KEY only."""
    headers = {"Content-Type": "application/json"}
    if key := os.environ.get("OPENAI_API_KEY"):
        headers["Authorization"] = f"Bearer {key}"
    data = json.dumps(body).encode() if body is not None else None
    where = url + route
    request = urllib.request.Request(where, data=data, headers=headers, method="POST" if data else "GET")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read(MAX_REPLY_BYTES + 1)
    except urllib.error.HTTPError as exc:
        reply = quote(error_body(exc))
        error = GenerationError(f"{where} answered {exc.code}: {reply}", "check the model name and $OPENAI_API_KEY")
        error.reply = reply  # what the server said (`refused_images` reads it)
        raise error from exc
    except OSError as exc:  # refused, unreachable, timed out (URLError, TimeoutError, ConnectionError)
        raise GenerationError(
            f"cannot reach {where} ({quote(str(getattr(exc, 'reason', exc)))})",
            "start the server or set --base-url / $OPENAI_BASE_URL",
        ) from exc
    except (http.client.HTTPException, ValueError) as exc:  # broken status line, headers, chunks
        raise GenerationError(f"{where} gave no valid HTTP reply ({quote(repr(exc))})", API_HINT) from exc
    return decode(raw, where)


def decode(raw: bytes, where: str) -> object:
    """The JSON value of a reply body of at most MAX_REPLY_BYTES, else a GenerationError."""
    if len(raw) > MAX_REPLY_BYTES:
        raise GenerationError(f"{where} sent a reply over {MAX_REPLY_BYTES} bytes: {quote(raw)}", API_HINT)
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise GenerationError(f"{where} sent a reply that is not UTF-8: {quote(raw)}", API_HINT) from exc
    except (ValueError, RecursionError) as exc:  # not JSON, or nested / numbers beyond Python's limits
        raise GenerationError(f"{where} sent a reply that is not JSON: {quote(raw)}", API_HINT) from exc


def error_body(exc: urllib.error.HTTPError) -> bytes:
    """The start of an HTTP error's body (what an error message quotes), b"" if unreadable."""
    try:
        return exc.read(QUOTE_BYTES)
    except (OSError, http.client.HTTPException, ValueError, AttributeError):  # AttributeError: no body
        return b""


def pick(value: object, *path: str | int) -> object:
    """`value[path[0]][path[1]]…` of a decoded reply, None where the reply has another shape."""
    found: Any = value  # any shape: a wrong one raises below
    for key in path:
        try:
            found = found[key]
        except (KeyError, IndexError, TypeError):
            return None
    return found


def shown(reply: object) -> str:
    """A decoded reply for an error message: bounded, on one line."""
    return quote(_SHORT.repr(reply))


def quote(text: str | bytes) -> str:
    """`text` for an error message: its first QUOTE_CHARS characters on one line, control
    characters and bytes that are not UTF-8 escaped, "…" where cut."""
    if isinstance(text, bytes):
        text = text[:QUOTE_BYTES].decode("utf-8", errors="backslashreplace")
    escaped = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text[:QUOTE_CHARS])
    cut = len(text) > QUOTE_CHARS or len(escaped) > QUOTE_CHARS
    return escaped[:QUOTE_CHARS] + ("…" if cut else "") or "(empty)"
