"""`videorag serve` under load, on the 1,000-video / 50k-segment index of bench_core.py:

1. cold start: from starting the process to the first `/search` answer;
2. `/search` under N concurrent clients (default 8) on loopback, bounded in time and count:
   throughput, p50 / p95 / p99, errors (goal: p99 ≤ 200 ms, 0 errors);
3. time to the first streamed token of `POST /ask?stream=true` with the local llama.cpp generator.

Usage: python benchmarks/bench_serve.py [--out bench-results] [--clients 8] [--seconds 60] [--embed-backend onnx]
Builds the index first if bench_core.py has not (python benchmarks/bench_core.py --skip ingest,ask).
Prints figures and writes OUT/serve-BACKEND.json.
"""
from __future__ import annotations

import argparse
import json
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import THINGS, TOPICS, VERBS, bench_search  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(index: Path, port: int, backend: str) -> tuple[subprocess.Popen, float]:
    """Start the server; seconds until the first /search answered."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "videorag.cli", "serve", "--index", str(index), "--port",
                             str(port), "--generator", "llamacpp", "--embed-backend", backend],
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
                q = f"how do I {rng.choice(VERBS)} {rng.choice(THINGS)} on a {rng.choice(TOPICS)}"
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
    p = lambda q: round(float(np.percentile(times, q)), 1)  # noqa: E731
    return {"clients": clients, "seconds": round(wall, 1), "requests": len(times), "errors": errors[0],
            "throughput_rps": round(len(times) / wall, 1), "p50_ms": p(50), "p95_ms": p(95), "p99_ms": p(99)}


def first_token(port: int, question: str = "how do I fix the chain on a bike?") -> dict:
    t0 = time.perf_counter()
    first = None
    with httpx.stream("POST", f"http://127.0.0.1:{port}/ask", params={"stream": "true"},
                      json={"question": question}, timeout=300) as reply:
        for line in reply.iter_lines():
            if first is None and line.startswith("event: token"):
                first = time.perf_counter() - t0
    return {"first_token_seconds": round(first, 2), "whole_answer_seconds": round(time.perf_counter() - t0, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("bench-results"))
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--embed-backend", default="sentence-transformers", help="e.g. onnx (no torch)")
    args = parser.parse_args()
    index = args.out / "search-index"
    if not (index / "videorag.json").is_file():
        bench_search(args.out)
    port = free_port()
    proc, cold = start(index, port, args.embed_backend)
    try:
        results = {"embed_backend": args.embed_backend, "cold_start_to_first_answer_seconds": round(cold, 2),
                   "search_under_load": load(port, args.clients, args.seconds),
                   "ask_stream_llamacpp": [first_token(port) for _ in range(2)]}
    finally:
        proc.terminate()
        proc.wait(30)
    print(json.dumps(results, indent=1))
    (args.out / f"serve-{args.embed_backend}.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
