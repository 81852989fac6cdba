"""The openai generator and captioner against a real local server scripted to reply badly:
every malformed reply ends in one GenerationError with a short one-line message."""
from __future__ import annotations

import io
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PIL import Image

import videorag.llm.server as openai_backend
from videorag.caption import create_captioner
from videorag.config import GenerateConfig
from videorag.errors import GenerationError
from videorag.generate import create_generator
from videorag.types import Evidence
from videorag.types import Frame, Hit, Segment

MODELS = (200, b'{"data": [{"id": "listed-model"}]}')
ANSWER = (200, b'{"choices": [{"message": {"role": "assistant", "content": " Four hours. "}}]}')
HANG = (None, None)  # the handler waits (until the test ends) and never answers


class _Scripted(BaseHTTPRequestHandler):
    """Answers each route with the server's scripted (status, body); status None writes the body
    as raw bytes instead of an HTTP reply."""

    def do_GET(self):  # noqa: N802
        self._answer()

    def do_POST(self):  # noqa: N802
        self.server.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
        self._answer()

    def _answer(self):
        status, body = self.server.replies[self.path.removeprefix("/v1")]
        try:
            if body is None:
                self.server.release.wait(10)
            elif status is None:
                self.wfile.write(body)
            else:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client stopped reading: as intended
            pass

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def httpd():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
    httpd.url = f"http://127.0.0.1:{httpd.server_port}/v1"
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture()
def server(httpd, monkeypatch):
    """The module's server, answering well until a test scripts otherwise."""
    for name in ("OPENAI_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    httpd.replies = {"/models": MODELS, "/chat/completions": ANSWER}
    httpd.bodies, httpd.release = [], threading.Event()
    yield httpd
    httpd.release.set()


def _jpeg() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (32, 18), (42, 157, 143)).save(buffer, format="JPEG")
    return buffer.getvalue()


EVIDENCE = [Evidence(Hit("v-paint", "/videos/paint.mp4", 25.0, 29.0, 0.9, "Let it dry four hours."),
                     [Segment(25.0, 29.0, "Let the first coat dry for four hours.")], [Frame(1.0, _jpeg())])]


def _generate(url: str, model: str | None, timeout: float = 5.0) -> str:
    config = GenerateConfig(backend="openai", base_url=url, model=model, timeout=timeout)
    return create_generator(config).generate("How long should it dry?", EVIDENCE).answer


def _complete(url: str, model: str | None) -> str:
    return create_generator(GenerateConfig(backend="openai", base_url=url, model=model)).complete("Rate: 1-5")


def _caption(url: str, model: str | None) -> str:
    (caption,) = create_captioner("openai", model, url).caption([Frame(0.0, _jpeg())], [])
    return caption.text


DRIVERS = {"generate": _generate, "complete": _complete, "caption": _caption}


def _one_short_line(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert len(message.splitlines()) == 1 and all(c.isprintable() for c in message), message
    assert len(message) < 500, message
    return message


NESTED = b"[" * 100_000 + b"]" * 100_000
BAD_CHAT = {
    "not utf-8": b'{"choices": "\xff\xfe\xfd"}',
    "not json": b"<html><body>Bad gateway</body></html>",
    "empty": b"",
    "control characters": b"\x00\x1b[31m\r\nTraceback (most recent call last):\n" * 50,
    "a list": b'[{"message": {"content": "hi"}}]',
    "a string": b'"Four hours."',
    "no choices": b'{"id": "chatcmpl-1", "object": "chat.completion"}',
    "choices empty": b'{"choices": []}',
    "choices a string": b'{"choices": "Four hours."}',
    "message missing": b'{"choices": [{"index": 0, "finish_reason": "stop"}]}',
    "message null": b'{"choices": [{"message": null}]}',
    "content missing": b'{"choices": [{"message": {"role": "assistant"}}]}',
    "content null": b'{"choices": [{"message": {"role": "assistant", "content": null}}]}',
    "content a number": b'{"choices": [{"message": {"content": 4}}]}',
    "content a list": b'{"choices": [{"message": {"content": [{"type": "text", "text": "hi"}]}}]}',
    "nested too deep": NESTED,
    "number too long": b'{"choices": ' + b"7" * 10_000 + b"}",
}


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("case", BAD_CHAT)
def test_malformed_chat_reply_is_one_short_line(server, driver, case):
    server.replies["/chat/completions"] = (200, BAD_CHAT[case])
    with pytest.raises(GenerationError) as error:
        DRIVERS[driver](server.url, "m")
    assert "/v1/chat/completions" in _one_short_line(error)


BAD_MODELS = {
    "not utf-8": b"\xff\xfe\x00d\x00a",
    "not json": b"models: listed-model",
    "a list": b'[{"id": "listed-model"}]',
    "no data": b"{}",
    "data empty": b'{"object": "list", "data": []}',
    "data a string": b'{"data": "listed-model"}',
    "entry without id": b'{"data": [{"object": "model", "name": "listed-model"}]}',
    "id null": b'{"data": [{"id": null}]}',
    "id a number": b'{"data": [{"id": 7}]}',
    "id empty": b'{"data": [{"id": ""}]}',
}


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("case", BAD_MODELS)
def test_malformed_model_list_is_one_short_line(server, driver, case):
    server.replies["/models"] = (200, BAD_MODELS[case])
    with pytest.raises(GenerationError) as error:
        DRIVERS[driver](server.url, None)
    assert "/v1/models" in _one_short_line(error)
    assert not server.bodies  # nothing was asked of a model that could not be named


HTTP_ERRORS = {
    "binary 500": (500, b"\x00\xff\xfe\x1b[0m\n" * 20_000),
    "html 502": (502, b"<html>\r\n<h1>502 Bad Gateway</h1>\r\n</html>"),
    "json 401": (401, b'{"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}}'),
    "empty 404": (404, b""),
}


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("case", HTTP_ERRORS)
def test_http_error_quotes_a_short_escaped_body(server, driver, case):
    server.replies["/chat/completions"] = HTTP_ERRORS[case]
    with pytest.raises(GenerationError, match=f"answered {HTTP_ERRORS[case][0]}") as error:
        DRIVERS[driver](server.url, "m")
    _one_short_line(error)


def test_error_quotes_at_most_200_characters_with_controls_escaped(server):
    server.replies["/chat/completions"] = (500, b"line one\nline two\x00\x07" + b"x" * 10_000)
    with pytest.raises(GenerationError) as error:
        _generate(server.url, "m")
    message = _one_short_line(error)
    assert "line one\\nline two\\x00\\x07xxx" in message and "x" * 201 not in message and "…" in message


BROKEN_HTTP = {
    "not http": b"HELLO THERE\r\n\r\n",
    "no reply at all": b"",
    "body cut short": b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"choices\": [",
    "bad chunk size": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    "header line too long": b"HTTP/1.1 200 OK\r\nX-Junk: " + b"j" * 100_000 + b"\r\n\r\n{}",
}


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("case", BROKEN_HTTP)
def test_broken_http_is_one_short_line(server, driver, case):
    server.replies["/chat/completions"] = (None, BROKEN_HTTP[case])
    with pytest.raises(GenerationError) as error:
        DRIVERS[driver](server.url, "m")
    assert server.url in _one_short_line(error)


def test_reply_over_the_cap_is_refused_unread(server, monkeypatch):
    monkeypatch.setattr(openai_backend, "MAX_REPLY_BYTES", 1000)
    content = b'{"choices": [{"message": {"content": "' + b"a" * 5000 + b'"}}]}'
    server.replies["/chat/completions"] = (200, content)
    with pytest.raises(GenerationError, match="over 1000 bytes") as error:
        _caption(server.url, "m")
    _one_short_line(error)
    server.replies["/chat/completions"] = (200, content[:1000])  # at the cap: read, then found cut
    with pytest.raises(GenerationError, match="not JSON"):
        _caption(server.url, "m")


def test_default_cap_refuses_a_longer_reply(server):
    size = openai_backend.MAX_REPLY_BYTES + 2**20
    content = b'{"choices": [{"message": {"content": "' + b"a" * size + b'"}}]}'
    server.replies["/chat/completions"] = (200, content)
    with pytest.raises(GenerationError, match=f"over {openai_backend.MAX_REPLY_BYTES} bytes") as error:
        _generate(server.url, "m")
    _one_short_line(error)


def test_timeout_names_the_url(server):
    server.replies["/chat/completions"] = HANG
    with pytest.raises(GenerationError, match="cannot reach .*timed out") as error:
        _generate(server.url, "m", timeout=0.5)
    assert server.url in _one_short_line(error)


def test_connection_refused_names_the_url():
    with socket.socket() as probe:  # a port that was free a moment ago and has no listener
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    with pytest.raises(GenerationError, match="cannot reach .*refused") as error:
        _generate(url, "m")
    assert url in _one_short_line(error)


@pytest.mark.parametrize("driver", DRIVERS)
def test_valid_reply_text_comes_through_with_the_listed_model(server, driver):
    text = DRIVERS[driver](server.url, None)
    assert text == ("seen: Four hours." if driver == "caption" else "Four hours.")
    assert b'"model": "listed-model"' in server.bodies[0]


@pytest.mark.parametrize("content", [b'""', b'"  \\n "'])
def test_empty_reply_text_is_a_valid_empty_answer(server, content):
    server.replies["/chat/completions"] = (200, b'{"choices": [{"message": {"content": ' + content + b"}}]}")
    assert _complete(server.url, "m") == ""
