"""ASR with faster-whisper (CTranslate2), greedy decoding, int8 on CPU; each segment's words timed
afterwards by Whisper's cross-attention alignment (`align.py`: asked for while decoding, word
timestamps change what is decoded).

The audio goes to the model in windows of at most `window_seconds` (see `audio.audio_windows`),
so memory stays bounded whatever the video's length. When a window's greedy text looks wrong
(too repetitive, too unlikely), Whisper decodes it again by sampling at rising temperatures.
CTranslate2 draws from a random generator per worker thread, seeded at its first draw with the
seed set then (`SEED`, set before every window) and carried on from there. So a window that
sampled is decoded again on a new instance, whose worker draws from `SEED` afresh: a video's
transcript does not depend on which windows or videos an instance decoded before it (alone or in a
batch, in this process or another). Measured: unseeded, one video came out at 0.12 or 0.47 word
error rate from run to run; seeded but on a reused instance, a benchmark recording's words
changed from 366 s on between being indexed alone and in an 18-video batch. The English
translation of speech in another language (below) is redone the same way.

`streams` videos can be transcribed at once (from as many threads), and the windows of one long
video go to as many instances as are idle: each window borrows one of `streams` model instances,
each on cores / streams threads. Separate instances rather than one instance with `streams`
CTranslate2 workers: in one measurement the shared instance changed 2 of 9 transcripts between
runs, separate instances none (they give one stream's transcripts on as many threads; a
different thread count changes the numbers, and so a word here and there). On 2 cores, Whisper tiny.en's
greedy decoding keeps the second core mostly idle: two single-threaded streams transcribed 2.0×
as much audio a second as one stream on both cores (and one stream on one thread was no slower
than on two), measured on the 9 how-tos of benchmarks `ingest_engines`.

Languages (`language.py`): with `language="auto"` (the default) a video is transcribed by the
English model first; when that transcript does not read as English, a multilingual Whisper
(`multilingual_model`, default whisper-base from `videorag[languages]`) identifies the language
and transcribes it again in that language. Without a multilingual model such a video is refused
in words (never indexed as English-sounding noise). `language="en"` skips identification; any
other code transcribes with the multilingual model in that language. Speech in another language
is also translated into English by the same model (its `translate` task, loops left out:
`Transcript.translation`), a second text for retrieval that ingest puts beside each segment's.
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
from typing import Any

from ..errors import MediaError, ModelNotFoundError
from ..models import PRESETS, WHISPER_BASE, WHISPER_TINY_EN, installed, resolve
from ..types import Segment, Transcript, Word
from .align import Remembered, aligned
from .audio import SAMPLE_RATE, WINDOW_SECONDS, audio_windows
from .language import REPETITIVE, Heard, Stretches, identify, looks_english

log = logging.getLogger(__name__)
SEED = 0  # of the sampling Whisper falls back to
LANGUAGES_INSTALL = "pip install 'videorag[languages]'"


PROBE_SECONDS = 20.0  # the English model's transcript of this much of a video's start decides whether it goes on


class NotEnglish(Exception):
    """The start of a video does not read as English (raised by a probing English transcription);
    `heard`: whether the English model wrote anything at all."""

    def __init__(self, heard: bool = False):
        super().__init__("not English")
        self.heard = heard


class Pool:
    """`streams` instances of one Whisper model, loaded together on first use; each window
    borrows an idle one."""

    def __init__(self, path: str, device: str, compute_type: str, streams: int):
        self.path, self.device, self.compute_type, self.streams = path, device, compute_type, streams
        self._models: queue.SimpleQueue | None = None
        self._loading = threading.Lock()
        self.multilingual = False

    def warm_up(self) -> None:
        with self._loading:
            if self._models is None:
                models: queue.SimpleQueue = queue.SimpleQueue()
                for _ in range(self.streams):
                    models.put(self.fresh())
                self._models = models

    def fresh(self):
        """A new instance: its CTranslate2 worker is a new thread, whose random generator is seeded
        (with `SEED`) at its first draw."""
        from faster_whisper import WhisperModel

        compute = self.compute_type
        if compute == "default":
            compute = "int8" if self.device in ("auto", "cpu") else "float16"
        threads = max(1, cpu_threads() // self.streams)
        model = WhisperModel(self.path, device=self.device, compute_type=compute, cpu_threads=threads)
        Remembered(model)  # its encoder outputs, for the word alignment after decoding
        self.multilingual = model.model.is_multilingual
        return model

    @contextmanager
    def borrow(self) -> Iterator[Lent]:
        """An idle model instance, for one window (waits while all `streams` are busy)."""
        self.warm_up()
        assert self._models is not None
        lent = Lent(self, self._models.get())
        try:
            yield lent
        finally:
            self._models.put(lent.model)


class Lent:
    """A pool's instance, borrowed (`model`); `renew()` puts a new instance in its place, which
    goes back to the pool."""

    def __init__(self, pool: Pool, model):
        self.pool, self.model = pool, model

    def renew(self) -> None:
        """A new instance in place of the old (see `Pool.fresh`), whose memory is let go first: its
        weights unloaded, and the instance freed as soon as no caller holds it (its `Remembered`
        encoder, a reference cycle, taken off). Measured, transcribing python-lecture-7 (its first
        window samples): peak RSS 699 MB, against 868 MB with both instances held and 631 MB before
        windows were redone."""
        old, self.model = self.model, None
        old.model.unload_model()
        del old.encode
        self.model = self.pool.fresh()


class FasterWhisperASR:
    def __init__(
        self,
        model: str | None = None,
        language: str | None = "auto",
        device: str = "auto",
        compute_type: str = "default",
        beam_size: int = 1,
        window_seconds: float = WINDOW_SECONDS,
        streams: int = 1,
        multilingual_model: str | None = None,
        translate: bool = True,
    ):
        self.language = language or "auto"
        self.translate = translate  # speech in another language also translated into English
        self.beam_size = beam_size
        self.window_seconds = window_seconds
        path, self.model_name = resolve(model, WHISPER_TINY_EN)
        self._pool = Pool(path, device, compute_type, streams)
        self._multilingual_spec = multilingual_model
        self._multilingual: Pool | None = None

    @property
    def streams(self) -> int:
        return self._pool.streams

    def warm_up(self) -> None:
        """Load the `streams` model instances (once)."""
        self._pool.warm_up()

    def multilingual(self) -> Pool:
        """The pool that transcribes other languages: the main model when it is multilingual, else
        `multilingual_model` (loaded on first use; assembled into the cache only then)."""
        self._pool.warm_up()
        if self._pool.multilingual:
            return self._pool
        if self._multilingual is None:
            spec = self._multilingual_spec
            preset = PRESETS.get(spec or "", WHISPER_BASE)
            if spec is None and not installed(preset):
                raise ModelNotFoundError("no multilingual speech model is installed", LANGUAGES_INSTALL)
            path, _ = resolve(spec, WHISPER_BASE)
            self._multilingual = Pool(path, self._pool.device, self._pool.compute_type, self._pool.streams)
        return self._multilingual

    def transcribe(self, path: str, progress: Callable[[float], None] | None = None) -> Transcript:
        """The file's speech in its language (`Transcript.language`): see the module's docstring."""
        if self.language not in ("auto", "en"):
            return self._run(path, self.multilingual(), Heard(self.language), progress)[0]
        self.warm_up()
        if self.language == "en":
            return self._run(path, self._pool, Heard("en"), progress)[0]
        stretches = Stretches()
        if self._pool.multilingual:  # identify first, then transcribe once
            for _, audio in audio_windows(path, self.window_seconds):
                stretches.add(audio)
            heard = _sure(path, self._identify(self._pool, stretches)) or Heard("en")
            return self._run(path, self._pool, heard, progress)[0]
        try:
            english, pieces = self._run(path, self._pool, Heard("en"), progress, stretches, probe=True)
            heard_speech = bool(english)
        except NotEnglish as stopped:  # its start is not English: nothing more is transcribed in English
            english, pieces, heard_speech = Transcript(), [], stopped.heard
            stretches = Stretches()
            for _, audio in audio_windows(path, self.window_seconds):
                stretches.add(audio)
        if looks_english(pieces):
            return english
        pool = self._other_language(path, heard_speech)
        found = _sure(path, self._identify(pool, stretches))
        if found is not None and found.language == "en" and not pieces:  # English after all
            english = self._run(path, self._pool, found, progress)[0]
        if found is None or found.language == "en":  # no speech in it, or English
            return Transcript(english, "en", found.probability if found else None)
        return self._run(path, pool, found, progress)[0]

    def _other_language(self, path: str, heard_speech: bool) -> Pool:
        """The multilingual pool, for a video whose English transcript is unlikely (or, without
        `heard_speech`, empty); refused in words without one."""
        try:
            return self.multilingual()
        except ModelNotFoundError:
            said = "the speech does not sound English" if heard_speech else "no English speech recognised in the audio"
            raise MediaError(
                f"{path}: {said}, and no multilingual speech model is installed",
                f"to index other languages: {LANGUAGES_INSTALL}; to keep it as English: --language en; "
                "or put subtitles (.srt / .vtt) beside it",
            ) from None

    @staticmethod
    def _identify(pool: Pool, stretches: Stretches) -> Heard | None:
        with pool.borrow() as lent:
            return identify(lent.model, stretches.spread())

    def _run(
        self,
        path: str,
        pool: Pool,
        heard: Heard,
        progress: Callable[[float], None] | None,
        stretches: Stretches | None = None,
        probe: bool = False,
    ) -> tuple[Transcript, list]:
        """(transcript, faster-whisper's pieces) of the file in `heard.language`. The file's
        windows go to the pool's idle instances: up to `streams` of one long file at once when no
        other file is being transcribed (at most that many windows decoded ahead). `progress` is
        called after every piece (from the windows' threads): raising there stops the
        transcription within a piece. `stretches` keeps a few stretches of audio on the way; with
        `probe`, NotEnglish is raised once the first PROBE_SECONDS of the first window (or all of it)
        do not read as English, and the other windows stop."""
        segments: list[Segment] = []
        pieces: list = []
        english: list[Segment] = []  # the translation, for speech in another language
        reached = [0.0]  # recognised up to here; said again after every piece, so a caller can stop us
        stop = threading.Event()  # set when the probed start is not English: the other windows stop
        again = (lambda: progress(reached[0])) if progress is not None else None
        try:
            with ThreadPoolExecutor(pool.streams, thread_name_prefix="videorag-asr") as threads:
                running: deque = deque()
                for start, audio in audio_windows(path, self.window_seconds):
                    if stretches is not None:
                        stretches.add(audio)
                    checked = probe and not start
                    job = threads.submit(self._window, pool, heard.language, start, audio, again, checked, stop)
                    running.append((start + len(audio) / SAMPLE_RATE, job))
                    if len(running) >= pool.streams:
                        _done(running.popleft(), progress, reached, (segments, pieces, english))
                while running:
                    _done(running.popleft(), progress, reached, (segments, pieces, english))
        except NotEnglish:
            raise
        except Exception as exc:  # PyAV / CTranslate2 raise many types for broken audio
            raise MediaError(
                f"{path}: audio cannot be transcribed ({exc.__class__.__name__}: {exc})",
                "the audio track is corrupt; re-export the file or add .srt subtitles",
            ) from exc
        spoken = [s for s in segments if s.text]
        return Transcript(spoken, heard.language, heard.probability, [s for s in english if s.text]), pieces

    def _window(self, pool: Pool, language: str, start: float, audio, again, probe=False, stop=None) -> tuple:
        segments = []
        with pool.borrow() as lent:
            decoded, info = self._decoded(lent.model, audio, language, again, probe, stop)
            if any(p.temperature for p in decoded):  # sampled: again on new threads, whose draws start at SEED
                lent.renew()
                decoded, info = self._decoded(lent.model, audio, language, again, False, stop)
            timed = aligned(lent.model, audio, decoded, info.language)
            for p, words in zip(decoded, timed, strict=True):
                moved = tuple(Word(start + w.start, start + w.end, w.text) for w in words)
                segments.append(Segment(start + float(p.start), start + float(p.end), p.text.strip(), moved))
            translate = language != "en" and self.translate
            english = self._translated(lent, audio, language, start) if translate else []
        return segments, decoded, english

    def _decoded(self, model, audio, language: str, again, probe: bool, stop) -> tuple[list, Any]:
        """The window's pieces, decoded by `model` (probing the start for English when `probe`)."""
        pieces, info = self._transcribed(model, audio, language)
        decoded: list = []
        for p in pieces:  # decoded lazily, ~30 s of audio at a time
            decoded.append(p)
            if stop is not None and stop.is_set():
                raise NotEnglish
            if probe and p.end >= PROBE_SECONDS:
                probe = _probed(decoded, stop)
            if again is not None:
                again()
        if probe:
            _probed(decoded, stop)
        return decoded, info

    def _translated(self, lent: Lent, audio, language: str, start: float) -> list[Segment]:
        """What the window says in English (Whisper's `translate` task, its loops left out): a
        second text for retrieval, so that a question in English finds speech in another language.
        Decoded again on a new instance when it sampled, as the transcript is."""
        pieces = list(self._transcribed(lent.model, audio, language, "translate")[0])
        if any(p.temperature for p in pieces):
            lent.renew()
            pieces = list(self._transcribed(lent.model, audio, language, "translate")[0])
        kept = (p for p in pieces if p.compression_ratio <= REPETITIVE)
        return [Segment(start + float(p.start), start + float(p.end), p.text.strip()) for p in kept]

    def _transcribed(self, model, audio, language: str, task: str = "transcribe") -> tuple:
        """faster-whisper's (lazy pieces, info) for the window, `SEED` set first."""
        import ctranslate2

        ctranslate2.set_random_seed(SEED)
        return model.transcribe(
            audio,
            language=language,
            task=task,
            beam_size=self.beam_size,
            condition_on_previous_text=False,
            vad_filter=False,
        )


def _sure(path: str, found: Heard | None) -> Heard | None:
    """`found`, unless identification is doubtful (`Heard.doubtful`): then the video is refused in
    words rather than transcribed as noise in a language it may not speak."""
    if found is not None and found.doubtful:
        other = f", first heard as {found.heard_as!r}" if found.heard_as else ""
        raise MediaError(
            f"{path}: the language of its speech is unclear ({found.language!r} at {found.probability:.2f}{other})",
            "if you know it, index it with --language CODE (e.g. --language en); or put subtitles beside it",
        )
    return found


def _probed(decoded: list, stop) -> bool:
    """False (probing is over) when the pieces decoded so far read as English; else NotEnglish,
    the other windows told to `stop`."""
    if looks_english(decoded):
        return False
    if stop is not None:
        stop.set()
    raise NotEnglish(any(p.text.strip() for p in decoded))


def _done(window: tuple[float, Future], progress, reached: list, into: tuple[list, list, list]) -> None:
    """A window's segments, pieces and translation, once recognised (added to `into`'s);
    `progress` hears where it ends."""
    end, job = window
    for found, results in zip(job.result(), into, strict=True):
        results += found
    reached[0] = end
    if progress is not None:
        progress(end)


def cpu_threads() -> int:
    """CTranslate2's threads: the cores, but never above an OpenMP thread limit in the
    environment (measured: with OMP_THREAD_LIMIT=1 — a common Tesseract setting — and more
    threads asked, Whisper returned "!!!!" or "..." for every segment)."""
    threads = os.cpu_count() or 1
    limit = os.environ.get("OMP_THREAD_LIMIT", "").strip()
    return max(1, min(threads, int(limit))) if limit.isdigit() and int(limit) > 0 else threads
