"""ASR with faster-whisper (CTranslate2), greedy decoding, int8 on CPU."""
from __future__ import annotations

import logging
import os

from ..errors import MediaError
from ..models import WHISPER_TINY_EN, resolve
from ..types import Segment

log = logging.getLogger(__name__)


class FasterWhisperASR:
    def __init__(self, model: str | None = None, language: str | None = "en",
                 device: str = "auto", compute_type: str = "default", beam_size: int = 1):
        self.language = language
        self.device = device
        self.compute_type = compute_type
        self.beam_size = beam_size
        self._model = None
        self._path, self.model_name = resolve(model, WHISPER_TINY_EN)

    def warm_up(self) -> None:
        if self._model is None:
            from faster_whisper import WhisperModel

            compute = self.compute_type
            if compute == "default":
                compute = "int8" if self.device in ("auto", "cpu") else "float16"
            self._model = WhisperModel(self._path, device=self.device, compute_type=compute,
                                       cpu_threads=os.cpu_count() or 1)

    def transcribe(self, path: str) -> list[Segment]:
        self.warm_up()
        try:
            pieces, _ = self._model.transcribe(
                path, language=self.language, beam_size=self.beam_size,
                condition_on_previous_text=False, vad_filter=False)
            segments = [Segment(float(p.start), float(p.end), p.text.strip()) for p in pieces]
        except Exception as exc:  # PyAV / CTranslate2 raise many types for broken audio
            raise MediaError(f"{path}: audio cannot be transcribed ({exc.__class__.__name__}: {exc})",
                             "the audio track is corrupt; re-export the file or add .srt subtitles") from exc
        return [s for s in segments if s.text]
