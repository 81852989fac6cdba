"""`local`: the videos are built in this process, `streams` at a time (threads), each transcribed
by its own ASR model instance on cores / streams threads; frames are decoded by one more thread,
as a video's build starts. Builds come back in the order of the files, so the index is written as
with one stream.

Why two streams on 2 cores: Whisper's greedy decoding of one video leaves the second core mostly
idle; with two single-threaded streams ingest went from 16.8 to 29.6 × realtime (medians of 5
runs in one session, benchmarks `ingest_engines`), at the same word error rate."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from itertools import islice
from pathlib import Path

from ...config import IngestConfig
from ..discover import content_id

MAX_DEFAULT_STREAMS = 2  # measured on 2 cores; more cores get more threads per stream


class LocalEngine:
    name = "local"

    def __init__(self, config: IngestConfig):
        self.config = config

    def ids(self, paths: list[Path]) -> dict[Path, str | OSError]:
        return {path: _content_id(path) for path in paths}

    def build(self, ingestor, todo: list[tuple[Path, str]]) -> Iterator[tuple[Path, object]]:
        width = build_streams(self.config)
        with (
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="videorag-frames") as frames,
            ThreadPoolExecutor(max_workers=width, thread_name_prefix="videorag-build") as builders,
        ):

            def start(path: Path, video_id: str) -> tuple[Path, Future]:
                decoded = frames.submit(ingestor.frames, path)
                return path, builders.submit(ingestor.outcome, path, video_id, decoded.result)

            waiting = iter(todo)
            running = deque(start(*item) for item in islice(waiting, width))
            try:
                while running:
                    path, job = running.popleft()
                    following = next(waiting, None)
                    if following is not None:
                        running.append(start(*following))
                    yield path, job.result
                    del job  # let the record of a written video be freed
            finally:  # stopped early (an interrupt): start nothing more
                for _, job in running:
                    job.cancel()
                frames.shutdown(wait=False, cancel_futures=True)


def build_streams(config: IngestConfig) -> int:
    """Videos a process builds at once: with the local engine `config.streams`, else 2 (1 on one
    core); 1 with Ray (an actor builds one video at a time)."""
    if config.engine != "local":
        return 1
    return config.streams or min(MAX_DEFAULT_STREAMS, os.cpu_count() or 1)


def _content_id(path: Path) -> str | OSError:
    try:
        return content_id(path)
    except OSError as exc:
        return exc
