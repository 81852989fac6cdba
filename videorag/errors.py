"""Domain errors. Each message says what is wrong and how to fix it."""

from __future__ import annotations


class VideoRAGError(Exception):
    """Base class: every error videorag raises on purpose."""

    def __init__(self, message: str, hint: str | None = None):
        self.hint = hint
        super().__init__(f"{message} ({hint})" if hint else message)


class ConfigError(VideoRAGError, ValueError):
    """A configuration value is invalid."""


class MediaError(VideoRAGError):
    """A file cannot be ingested: not a video, corrupt, empty, or without text."""


class ModelNotFoundError(VideoRAGError):
    """A model could not be resolved from a path, a bundled package or the hub."""


class MissingDependencyError(VideoRAGError, ImportError):
    """An optional package needed by a chosen backend is not installed."""


class IndexError_(VideoRAGError):
    """The index directory is missing, empty, or was built with other models."""


class IndexBusy(IndexError_):
    """Another writer holds the index longer than this one was willing to wait."""


class UnknownBackendError(VideoRAGError, KeyError):
    """A backend name is not in its registry."""

    def __str__(self) -> str:  # KeyError would quote the message
        return self.args[0]


class GenerationError(VideoRAGError):
    """A generator backend failed (server unreachable, bad response). Set where known: `reply`,
    what an HTTP server answered (quoted; `videorag.llm.server.call`), and `details`, llama.cpp's
    error object (`videorag.llm.gguf`)."""

    reply: str
    details: dict


class CaptionError(VideoRAGError):
    """A captioner backend failed on a video's frames."""
