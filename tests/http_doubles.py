"""The base of the tests' fake HTTP servers (OpenAI-compatible doubles): JSON replies, no log;
and a real one beside them: llama.cpp's own server over a small text-only GGUF (`llama_server`)."""
from __future__ import annotations

import contextlib
import json
import select
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path


class JSONHandler(BaseHTTPRequestHandler):
    def send_json(self, value: object, status: int = 200) -> None:
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def llama_server(model: str, timeout: float = 60.0) -> Iterator[str]:
    """The base URL (…/v1) of llama.cpp's HTTP server over the GGUF file `model`, in a process of
    its own (`tests/llama_server.py`), up within `timeout` seconds, stopped when the block ends."""
    script = Path(__file__).with_name("llama_server.py")
    proc = subprocess.Popen([sys.executable, str(script), model], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        if not select.select([proc.stdout], [], [], timeout)[0]:
            raise RuntimeError(f"llama.cpp's server did not start within {timeout} s on {model}")
        address = proc.stdout.readline().strip()
        if not address.startswith("http"):
            raise RuntimeError(f"llama.cpp's server did not start on {model} (exit {proc.wait()})")
        yield address + "/v1"
    finally:
        proc.stdin.close()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
