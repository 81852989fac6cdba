"""Which language a video speaks: Whisper's language identification over several stretches of
its audio (not the first alone: an intro in English before a Spanish lesson, music before the
speech), their probabilities averaged.

Only languages Whisper was trained on with a good deal of audio are candidates (`KNOWN`): on
synthetic and accented speech its identification often names a language it knows little of —
German narrated by espeak-ng came out Yiddish (0.58, German 0.19), others Latin or Nynorsk —
and transcribing in such a language writes noise. The probability kept is the chosen language's
own (not renormalised): under DOUBTFUL the video is refused in words (`faster_whisper._sure`),
not transcribed as noise in a language it may not speak — a language Whisper knows little of, or
none, ends there; `--language CODE` indexes it anyway.

An English-only recogniser (tiny.en, the default) gets identification only when its transcript
looks unlike English (`looks_english`): English videos keep their speed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from ..languages import text_language
from ..types import Transcript
from .audio import SAMPLE_RATE

log = logging.getLogger(__name__)

# Whisper's languages with several hundred hours of training audio or more (Radford et al. 2022,
# appendix E), where its transcripts are worth indexing; `--language CODE` sets any other.
KNOWN = frozenset("en zh de es ru ko fr ja pt tr pl ca nl ar sv it id fi vi he uk el ms cs ro da hu no".split())
SLICE_SECONDS = 30.0  # what Whisper's identification reads at once
SLICES = 3  # stretches of a video identified (spread over it)
KEEP = 8  # stretches kept while transcribing (thinned evenly beyond it)
ENGLISH_LOGPROB = -0.5  # tiny.en's mean token log-probability below which a transcript may not be English
REPETITIVE = 2.4  # gzip compression ratio above which Whisper takes a decoded text for a loop
DOUBTFUL = 0.4  # a language identified with less probability is doubtful: the video is refused in words


@dataclass(frozen=True)
class Heard:
    """A video's language and the probability identification gave it (None: not identified, an
    English-only model's transcript was taken as English)."""

    language: str
    probability: float | None = None
    heard_as: str | None = None  # identification's own first choice, when not a candidate

    @property
    def doubtful(self) -> bool:
        return self.probability is not None and self.probability < DOUBTFUL


class Stretches:
    """Up to KEEP stretches of SLICE_SECONDS, one from the middle of each audio window seen,
    evenly thinned once there are more: what identification reads after transcription."""

    def __init__(self) -> None:
        self.kept: list[tuple[int, np.ndarray]] = []
        self.stride = 1
        self.seen = 0

    def add(self, audio: np.ndarray) -> None:
        n, self.seen = self.seen, self.seen + 1
        if n % self.stride:
            return
        size = int(SLICE_SECONDS * SAMPLE_RATE)
        start = max(0, (len(audio) - size) // 2)
        self.kept.append((n, audio[start : start + size].copy()))
        if len(self.kept) > KEEP:
            self.stride *= 2
            self.kept = [(i, a) for i, a in self.kept if i % self.stride == 0]

    def spread(self, count: int = SLICES) -> list[np.ndarray]:
        """`count` of the kept stretches, evenly spread (all of them when fewer)."""
        if len(self.kept) <= count:
            return [a for _, a in self.kept]
        picks = np.linspace(0, len(self.kept) - 1, count).round().astype(int)
        return [self.kept[i][1] for i in sorted(set(picks.tolist()))]


def identify(model, stretches: list[np.ndarray], known: frozenset[str] = KNOWN) -> Heard | None:
    """The language of `stretches` by a multilingual Whisper `model`: its probabilities averaged
    over the stretches with speech in them (Silero VAD), the likeliest of `known`; None when no
    stretch has speech."""
    total: dict[str, float] = {}
    heard = 0
    for audio in stretches:
        try:
            _, _, probabilities = model.detect_language(audio, vad_filter=True)
        except ValueError:  # no speech in the stretch: nothing to concatenate
            continue
        heard += 1
        for language, p in probabilities:
            total[language] = total.get(language, 0.0) + p
    if not heard:
        return None
    ranked = sorted(total.items(), key=lambda kv: -kv[1])
    best = next(((lang, p) for lang, p in ranked if lang in known), None)
    if best is None:
        return None
    first = ranked[0][0]
    log.info("language %s (%.2f), first choice %s", best[0], best[1] / heard, first)
    return Heard(best[0], round(best[1] / heard, 4), None if first == best[0] else first)


def looks_english(pieces: list) -> bool:
    """Whether the English model's decoded pieces (faster-whisper segments) read as English: some
    speech recognised, with a mean token log-probability (weighted by duration) of at least
    ENGLISH_LOGPROB, a piece as repetitive as Whisper's own threshold counting as -inf. Forced
    to English and decoded greedily, other languages come out unlikely (espeak-ng narration in
    Spanish, French, Dutch, Polish: -0.75 to -0.9), repeating one phrase (German, Portuguese:
    -0.2 but compression 17) or as nothing (Italian); English -0.42 at compression 1.3."""
    spoken = [(max(p.end - p.start, 0.01), p) for p in pieces if p.text.strip()]
    if not spoken or any(p.compression_ratio > REPETITIVE for _, p in spoken):
        return False
    return sum(d * p.avg_logprob for d, p in spoken) / sum(d for d, _ in spoken) >= ENGLISH_LOGPROB


def language_of(segments: list, source: str) -> Heard:
    """The language of a video's segments: what the recogniser says (a `types.Transcript`), for
    subtitles what their text says (`languages.text_language`: English without py3langid)."""
    if source == "asr" and isinstance(segments, Transcript):
        return Heard(segments.language, segments.probability)
    return Heard(text_language(" ".join(s.text for s in segments)[:5000]))
