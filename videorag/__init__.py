"""videorag: retrieval-augmented generation over video collections, with timestamped citations.

One-call helpers over the composable :class:`VideoRAG` pipeline::

    import videorag
    report = videorag.index(["videos/"], "my-index")
    hits = videorag.search("how do I remove rust", "my-index", top_k=3)
    moments = videorag.search("how do I remove rust", "my-index", moments=True)
    answer = videorag.ask("how long does the glue need to dry?", "my-index")
    print(answer.answer, answer.citations)
"""

from __future__ import annotations

import logging
from pathlib import Path

from .config import Config, EmbedConfig, GenerateConfig, IngestConfig, SearchConfig
from .errors import VideoRAGError
from .pipeline import VideoRAG
from .types import Answer, Citation, Frame, Hit, IngestReport, Segment

logging.getLogger(__name__).addHandler(logging.NullHandler())

__version__ = "0.1.0"
__all__ = [
    "Answer",
    "Citation",
    "Config",
    "EmbedConfig",
    "Frame",
    "GenerateConfig",
    "Hit",
    "IngestConfig",
    "IngestReport",
    "SearchConfig",
    "Segment",
    "VideoRAG",
    "VideoRAGError",
    "ask",
    "index",
    "search",
]


def index(paths: list[str | Path], index_dir: str | Path, config: Config | None = None) -> IngestReport:
    """Index files and folders (recursively) into `index_dir`; unchanged videos are skipped."""
    return VideoRAG(index_dir, config).add(paths)


def search(
    query: str,
    index_dir: str | Path,
    top_k: int = 5,
    config: Config | None = None,
    *,
    method: str | None = None,
    moments: bool = False,
) -> list[Hit]:
    """Best videos for `query`, each at its best moment; with `moments`, the best moments across
    the collection (several per video). `method` names a registered retrieval method."""
    return VideoRAG(index_dir, config).search(query, top_k, method=method, moments=moments)


def ask(question: str, index_dir: str | Path, generator: str = "auto", config: Config | None = None) -> Answer:
    """Answer `question` from the indexed videos, with (video, start, end) citations."""
    config = config or Config()
    config.generate.backend = generator
    return VideoRAG(index_dir, config).ask(question)
