"""Word timings for segments already decoded: faster-whisper's own cross-attention alignment
(`add_word_timestamps`) run on each decoding window afterwards.

Asking faster-whisper for word timestamps while decoding moves each next window's start to the
last word's end, which changes what is decoded (measured: word error rate on the espeak how-tos of
`benchmarks ingest_engines` 0.231 → 0.275; on the real-speech set 0.065 → 0.069). Aligned after
the fact, the transcript stays what it was. The encoder's output of each window is remembered
while decoding (`Remembered`) and reused, not computed again (that was 40 % of Whisper's time).
"""

from __future__ import annotations

import hashlib
from itertools import groupby

import numpy as np

from ..types import Word

PREPEND = "\"'“¿([{-"  # punctuation joined to the word after it (faster-whisper's defaults)
APPEND = "\"'.。,，!！?？:：”)]}、"  # … to the word before it


class Remembered:
    """A `WhisperModel`'s encoder, remembering its outputs by the features they encode (installed
    on the instance: `Remembered(model)`; `forget()` after each transcription)."""

    def __init__(self, model):
        self._encode, self.outputs = model.encode, {}
        model.encode = self

    def __call__(self, features):
        output = self._encode(features)
        self.outputs[_key(features)] = output
        return output

    def get(self, features):
        """The output for these features: remembered, else computed."""
        found = self.outputs.get(_key(features))
        return found if found is not None else self._encode(features)

    def forget(self) -> None:
        self.outputs.clear()


def _key(features) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(features).tobytes(), digest_size=16).digest()


def aligned(model, audio, pieces: list, language: str | None) -> list[tuple[Word, ...]]:
    """Each decoded piece's words (times relative to `audio`), by piece; `model` is the
    `faster_whisper.WhisperModel` that decoded `pieces` (its `Segment`s) from `audio`, its encoder
    `Remembered`."""
    from faster_whisper.audio import pad_or_trim
    from faster_whisper.tokenizer import Tokenizer

    tokenizer = Tokenizer(model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language=language)
    features = model.feature_extractor(audio)
    content, most = features.shape[-1] - 1, model.feature_extractor.nb_max_frames
    words: dict[int, tuple[Word, ...]] = {}
    last = 0.0  # where speech was last heard (the alignment trims a first word after a pause)
    for seek, group in groupby(pieces, key=lambda p: p.seek):
        window = list(group)
        size = min(most, content - seek)
        encoded = model.encode.get(pad_or_trim(features[:, seek : seek + size]))
        found = [{"seek": seek, "start": p.start, "end": p.end, "tokens": list(p.tokens)} for p in window]
        last = model.add_word_timestamps([found], tokenizer, encoded, size, PREPEND, APPEND, last) or last
        for piece, segment in zip(window, found, strict=True):
            said = segment.get("words", ())
            words[piece.id] = tuple(Word(float(w["start"]), float(w["end"]), w["word"].strip()) for w in said)
    model.encode.forget()
    return [words.get(p.id, ()) for p in pieces]
