"""`videorag serve` under load, on the 1,000-video / 50k-segment index of `core` (built if missing):

1. cold start: from starting the process to the first `/search` answer;
2. `/search` under N concurrent clients (default 8) on loopback, bounded in time and count:
   throughput, p50 / p95 / p99, errors (goal: p99 ≤ 200 ms, 0 errors);
3. time to the first streamed token of `POST /ask?stream=true` with the local llama.cpp generator.

    python -m benchmarks serve [--clients 8] [--seconds 60] [--embed-backend onnx] [--rate 50] [--searches N]
writes OUT/serve-BACKEND.json (`--rate R`: only `/search` at R requests a second, open loop:
OUT/serve-BACKEND-Rrps.json; `--searches N`: the server's, `-Ns` added to the name).
"""
from __future__ import annotations

import asyncio
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

import httpx

from .bench_core import search_index
from .synthetic import percentiles, question


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(index: Path, port: int, backend: str, searches: int = 0) -> tuple[subprocess.Popen, float]:
    """Start the server; seconds until the first /search answered."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "videorag.cli", "serve", "--index", str(index), "--port",
                             str(port), "--generator", "llamacpp", "--embed-backend", backend]
                            + (["--searches", str(searches)] if searches else []),
                            stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/search"
    while True:
        try:
            if httpx.get(url, params={"q": "how do I start"}, timeout=120).status_code == 200:
                return proc, time.perf_counter() - t0
        except httpx.TransportError:
            if proc.poll() is not None:
                raise SystemExit("the server exited before answering")
            time.sleep(0.2)


def load(port: int, clients: int, seconds: float, per_client: int = 5000) -> dict:
    times, errors, lock = [], [0], threading.Lock()
    deadline = time.perf_counter() + seconds

    def client(seed: int) -> None:
        rng = random.Random(seed)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            for _ in range(per_client):
                if time.perf_counter() > deadline:
                    return
                q = question(rng)
                t0 = time.perf_counter()
                try:
                    ok = http.get("/search", params={"q": q, "top_k": 10}).status_code == 200
                except httpx.HTTPError:
                    ok = False
                with lock:
                    times.append((time.perf_counter() - t0) * 1000)
                    errors[0] += not ok

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    start_time = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start_time
    return {"clients": clients, "seconds": round(wall, 1), "requests": len(times), "errors": errors[0],
            "throughput_rps": round(len(times) / wall, 1), **percentiles(times, (50, 95, 99), digits=1)}


def paced(port: int, rate: float, seconds: float) -> dict:
    """Open loop: a `/search` every 1/rate s whatever the answers; each latency counts from the
    request's scheduled time, so a server falling behind shows in it (no coordinated omission).
    The client is asyncio on raw keep-alive connections (0.5–0.7 ms of CPU a request, against
    2–3.5 ms for 32 threads of httpx), so that it takes little from the server beside it."""
    return asyncio.run(_paced(port, rate, seconds))


async def _paced(port: int, rate: float, seconds: float) -> dict:
    idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []  # keep-alive connections
    times, errors = [], [0]

    async def one(due: float, q: str) -> None:
        try:
            ok = await asyncio.wait_for(_get(idle, port, "/search?" + urlencode({"q": q, "top_k": 10})), 30)
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError):
            ok = False
        times.append((loop.time() - due) * 1000)
        errors[0] += not ok

    loop, rng = asyncio.get_running_loop(), random.Random(0)
    start_time, tasks = loop.time(), []
    for i in range(int(rate * seconds)):
        due = start_time + i / rate
        await asyncio.sleep(max(0.0, due - loop.time()))
        tasks.append(asyncio.create_task(one(due, question(rng))))
    await asyncio.gather(*tasks)
    for _, writer in idle:
        writer.close()
    wall = loop.time() - start_time
    return {"rate_rps": rate, "seconds": round(wall, 1), "requests": len(times), "errors": errors[0],
            "achieved_rps": round(len(times) / wall, 1), **percentiles(times, (50, 95, 99), digits=1)}


async def _get(idle: list, port: int, target: str) -> bool:
    """GET `target` on an idle keep-alive connection, or a new one if none is idle or the idle one
    was closed by the server meanwhile (uvicorn closes them after 5 s): whether it was a 200."""
    while idle:
        reader, writer = idle.pop()
        try:
            return await _sent(reader, writer, idle, target)
        except (ConnectionError, asyncio.IncompleteReadError):
            writer.close()
    return await _sent(*await asyncio.open_connection("127.0.0.1", port), idle, target)


async def _sent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, idle: list, target: str) -> bool:
    writer.write(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
    length = int(head.split("content-length:", 1)[1].split("\r\n", 1)[0])
    await reader.readexactly(length)
    idle.append((reader, writer))
    return head.startswith("http/1.1 200")


def first_token(port: int, asked: str = "how do I fix the chain on a bike?") -> dict:
    t0 = time.perf_counter()
    first = None
    with httpx.stream("POST", f"http://127.0.0.1:{port}/ask", params={"stream": "true"},
                      json={"question": asked}, timeout=300) as reply:
        for line in reply.iter_lines():
            if first is None and line.startswith("event: token"):
                first = time.perf_counter() - t0
    return {"first_token_seconds": round(first, 2), "whole_answer_seconds": round(time.perf_counter() - t0, 2)}


def options(parser) -> None:
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--embed-backend", default="sentence-transformers", help="e.g. onnx (no torch)")
    parser.add_argument("--searches", type=int, default=0, help="the server's --searches (default: its own)")
    parser.add_argument("--rate", type=float, default=0.0, help="instead of closed-loop clients: an open-loop "
                        "load of this many /search requests a second (no /ask)")


def main(run) -> dict:
    args = run.args
    run.label = args.embed_backend + (f"-{args.rate:g}rps" if args.rate else "")
    run.label += f"-{args.searches}s" if args.searches else ""
    port = free_port()
    proc, cold = start(search_index(run), port, args.embed_backend, args.searches)
    try:
        if args.rate:
            return {"embed_backend": args.embed_backend, "cold_start_to_first_answer_seconds": round(cold, 2),
                    "search_at_rate": paced(port, args.rate, args.seconds)}
        return {"embed_backend": args.embed_backend, "cold_start_to_first_answer_seconds": round(cold, 2),
                "search_under_load": load(port, args.clients, args.seconds),
                "ask_stream_llamacpp": [first_token(port) for _ in range(2)]}
    finally:
        proc.terminate()
        proc.wait(30)
