"""ASR with faster-whisper (CTranslate2), greedy decoding, int8 on CPU; each segment's words timed
afterwards by Whisper's cross-attention alignment (`align.py`: asked for while decoding, word
timestamps change what is decoded).

The audio goes to the model in windows of at most `window_seconds` (see `audio.audio_windows`),
so memory stays bounded whatever the video's length. When a window's greedy text looks wrong
(too repetitive, too unlikely), Whisper decodes it again by sampling at rising temperatures.
CTranslate2's random seed is set before every window, so a run's transcripts are the same from
process to process (measured: unseeded, one video came out at 0.12 or 0.47 word error rate from
run to run). Not from window to window: a CTranslate2 worker seeds its generator once and its
draws carry on, so a window that falls back to sampling can come out with other words when it
is transcribed again in the same process or after other windows (measured: 3 s pieces of
synthetic speech; two of the four 30-40 s test videos cut in 15 s windows, none in 10 s ones).

`streams` videos can be transcribed at once (from as many threads), and the windows of one long
video go to as many instances as are idle: each window borrows one of `streams` model instances,
each on cores / streams threads. Separate instances rather than one instance with `streams`
CTranslate2 workers: in one measurement the shared instance changed 2 of 9 transcripts between
runs, separate instances none (they give one stream's transcripts on as many threads; a
different thread count changes the numbers, and so a word here and there); a window that falls
back to sampling can vary either way (above). On 2 cores, Whisper tiny.en's
greedy decoding keeps the second core mostly idle: two single-threaded streams transcribed 2.0×
as much audio a second as one stream on both cores (and one stream on one thread was no slower
than on two), measured on the 9 how-tos of benchmarks `ingest_engines`.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager

from ..errors import MediaError
from ..models import WHISPER_TINY_EN, resolve
from ..types import Segment, Word
from .align import Remembered, aligned
from .audio import SAMPLE_RATE, WINDOW_SECONDS, audio_windows

log = logging.getLogger(__name__)
SEED = 0  # of the sampling Whisper falls back to


class FasterWhisperASR:
    def __init__(
        self,
        model: str | None = None,
        language: str | None = "en",
        device: str = "auto",
        compute_type: str = "default",
        beam_size: int = 1,
        window_seconds: float = WINDOW_SECONDS,
        streams: int = 1,
    ):
        self.language = language
        self.device = device
        self.compute_type = compute_type
        self.beam_size = beam_size
        self.window_seconds = window_seconds
        self.streams = streams
        self._models: queue.SimpleQueue | None = None  # the idle instances, one per stream
        self._loading = threading.Lock()
        self._path, self.model_name = resolve(model, WHISPER_TINY_EN)

    def warm_up(self) -> None:
        """Load the `streams` model instances (once)."""
        with self._loading:
            if self._models is None:
                from faster_whisper import WhisperModel

                compute = self.compute_type
                if compute == "default":
                    compute = "int8" if self.device in ("auto", "cpu") else "float16"
                threads = max(1, cpu_threads() // self.streams)
                models: queue.SimpleQueue = queue.SimpleQueue()
                for _ in range(self.streams):
                    model = WhisperModel(self._path, device=self.device, compute_type=compute, cpu_threads=threads)
                    Remembered(model)  # its encoder outputs, for the word alignment after decoding
                    models.put(model)
                self._models = models

    @contextmanager
    def _model(self) -> Iterator:
        """An idle model instance, for one window (waits while all `streams` are busy)."""
        self.warm_up()
        assert self._models is not None
        model = self._models.get()
        try:
            yield model
        finally:
            self._models.put(model)

    def transcribe(self, path: str, progress: Callable[[float], None] | None = None) -> list[Segment]:
        """The file's windows go to the idle instances: up to `streams` of one long file at once
        when no other file is being transcribed (at most that many windows decoded ahead).
        `progress` is called after every piece (from the windows' threads): raising there stops
        the transcription within a piece."""
        segments: list[Segment] = []
        reached = [0.0]  # recognised up to here; said again after every piece, so a caller can stop us
        again = (lambda: progress(reached[0])) if progress is not None else None
        try:
            with ThreadPoolExecutor(self.streams, thread_name_prefix="videorag-asr") as pool:
                running: deque = deque()
                for start, audio in audio_windows(path, self.window_seconds):
                    job = pool.submit(self._window, start, audio, again)
                    running.append((start + len(audio) / SAMPLE_RATE, job))
                    if len(running) >= self.streams:
                        segments += _done(running.popleft(), progress, reached)
                while running:
                    segments += _done(running.popleft(), progress, reached)
        except Exception as exc:  # PyAV / CTranslate2 raise many types for broken audio
            raise MediaError(
                f"{path}: audio cannot be transcribed ({exc.__class__.__name__}: {exc})",
                "the audio track is corrupt; re-export the file or add .srt subtitles",
            ) from exc
        return [s for s in segments if s.text]

    def _window(self, start: float, audio, again: Callable[[], None] | None) -> list[Segment]:
        import ctranslate2

        segments = []
        with self._model() as model:
            ctranslate2.set_random_seed(SEED)
            pieces, info = model.transcribe(
                audio,
                language=self.language,
                beam_size=self.beam_size,
                condition_on_previous_text=False,
                vad_filter=False,
            )
            decoded = []
            for p in pieces:  # decoded lazily, ~30 s of audio at a time
                decoded.append(p)
                if again is not None:
                    again()
            timed = aligned(model, audio, decoded, info.language)
            for p, words in zip(decoded, timed):
                moved = tuple(Word(start + w.start, start + w.end, w.text) for w in words)
                segments.append(Segment(start + float(p.start), start + float(p.end), p.text.strip(), moved))
        return segments


def _done(window: tuple[float, Future], progress: Callable[[float], None] | None, reached: list) -> list[Segment]:
    """A window's segments, once recognised; `progress` hears where it ends."""
    end, job = window
    segments = job.result()
    reached[0] = end
    if progress is not None:
        progress(end)
    return segments


def cpu_threads() -> int:
    """CTranslate2's threads: the cores, but never above an OpenMP thread limit in the
    environment (measured: with OMP_THREAD_LIMIT=1 — a common Tesseract setting — and more
    threads asked, Whisper returned "!!!!" or "..." for every segment)."""
    threads = os.cpu_count() or 1
    limit = os.environ.get("OMP_THREAD_LIMIT", "").strip()
    return max(1, min(threads, int(limit))) if limit.isdigit() and int(limit) > 0 else threads
