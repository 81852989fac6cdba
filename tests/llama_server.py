"""llama.cpp's own OpenAI-compatible HTTP server (what `llama-server` runs), started from the
xllamacpp wheel in a process of its own: `python tests/llama_server.py MODEL.gguf` listens on
127.0.0.1 (a free port), prints its address once it does, and serves until its stdin closes.
No `--mmproj`: a text-only model, as most local servers are (a request with images gets a 500)."""
from __future__ import annotations

import sys


def main(path: str) -> None:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = path
    params.n_ctx, params.n_parallel, params.warmup, params.verbosity = 2048, 2, False, -1
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = 1   # small tests beside other work
    params.port = 0   # a free one
    server = xllamacpp.Server(params)
    print(server.listening_address, flush=True)
    sys.stdin.read()   # until the test closes it (or dies)


if __name__ == "__main__":
    main(sys.argv[1])
