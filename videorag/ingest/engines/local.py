"""`local`: one video after another in this process; the next video's frames are decoded in a
worker thread while the current one is transcribed."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ...config import IngestConfig
from ..discover import content_id


class LocalEngine:
    name = "local"

    def __init__(self, config: IngestConfig):
        self.config = config

    def ids(self, paths: list[Path]) -> dict[Path, str | OSError]:
        return {path: _content_id(path) for path in paths}

    def build(self, ingestor, todo: list[tuple[Path, str]]) -> Iterator[tuple[Path, object]]:
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="videorag-frames") as pool:
            submit = lambda path: pool.submit(ingestor.frames, path)  # noqa: E731
            ahead = submit(todo[0][0]) if todo else None
            for i, (path, video_id) in enumerate(todo):
                frames, ahead = ahead, submit(todo[i + 1][0]) if i + 1 < len(todo) else None
                yield path, lambda p=path, v=video_id, f=frames: ingestor.outcome(p, v, f.result)
                del frames  # let the frames of a finished video be freed


def _content_id(path: Path) -> str | OSError:
    try:
        return content_id(path)
    except OSError as exc:
        return exc
