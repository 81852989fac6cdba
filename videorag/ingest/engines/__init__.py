"""Ingest engines, chosen by name (`IngestConfig.engine`, `videorag index --engine`).

An engine does the heavy work of an ingest run; the `Ingestor` keeps the decisions and is the
only writer of the index. Required of an engine:
- `ids(paths) -> {path: content id, or the OSError that made it unreadable}` (content hashing);
- `build(ingestor, todo) -> iterator of (path, build)` over `todo`'s (path, video_id), in any
  order, where `build()` returns `ingestor.outcome(...)`'s (record | None, FileResult).
"""

from __future__ import annotations

from ...config import IngestConfig
from ...registry import Registry

ENGINES = Registry(
    "ingest engine",
    {
        "local": "videorag.ingest.engines.local:LocalEngine",
        "ray": "videorag.ingest.engines.ray_data:RayEngine",
    },
)


def create_engine(config: IngestConfig):
    return ENGINES.create(config.engine, config)
