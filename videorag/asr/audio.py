"""Audio for ASR: a file's first audio track as 16 kHz mono float32, decoded in bounded windows.

Decoding a whole file at once makes memory grow with its length: an hour is 230 MB of samples,
and Whisper's spectrogram of it (an STFT of the whole array) several times that. Windows of at
most `window` seconds keep both bounded. Each window ends at the quietest `QUIET_SECONDS` stretch
within the last `search` seconds before its nominal end, so cuts fall in pauses between words.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import av
import numpy as np

SAMPLE_RATE = 16000  # Whisper's input rate
WINDOW_SECONDS = 300.0  # longest audio handed to the model at once
SEARCH_SECONDS = 10.0  # a window's cut is sought in this many seconds before its nominal end
QUIET_SECONDS = 0.1  # length of the stretch whose energy ranks cut points


def quietest_cut(audio: np.ndarray, lo: int, hi: int, quiet: int = int(QUIET_SECONDS * SAMPLE_RATE)) -> int:
    """The sample index in [lo, hi] at the middle of the lowest-energy `quiet`-long stretch
    of `audio[lo:hi]` (`hi` when that span is shorter than `quiet`)."""
    part = audio[lo:hi].astype(np.float64)
    if len(part) < quiet:
        return hi
    energy = np.concatenate(([0.0], np.cumsum(part * part)))
    stretch = energy[quiet:] - energy[:-quiet]  # energy of each stretch, by its first sample
    return lo + int(np.argmin(stretch)) + quiet // 2


def audio_windows(
    path: str | Path, window: float = WINDOW_SECONDS, search: float = SEARCH_SECONDS
) -> Iterator[tuple[float, np.ndarray]]:
    """(start seconds, samples) of consecutive windows covering the whole track, each at most
    `window` seconds long; a file shorter than `window` comes as one window."""
    size = int(window * SAMPLE_RATE)
    span = int(min(search, window / 2) * SAMPLE_RATE)
    blocks, have, start = [], 0, 0
    for block in _decode(path):
        blocks.append(block)
        have += len(block)
        if have >= size:
            audio = np.concatenate(blocks)
            cut = quietest_cut(audio, size - span, size)
            yield start / SAMPLE_RATE, audio[:cut]
            blocks, have, start = [audio[cut:].copy()], have - cut, start + cut
    if have or not start:
        yield start / SAMPLE_RATE, np.concatenate(blocks) if blocks else np.zeros(0, np.float32)


def _decode(path: str | Path) -> Iterator[np.ndarray]:
    """Blocks of samples, resampled as faster-whisper's `decode_audio` does (s16, then / 32768)."""
    resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
    with av.open(str(path), metadata_errors="ignore") as container:
        for frame in itertools.chain(_frames(container), [None]):
            if frame is not None:
                frame.pts = None  # as faster-whisper does: timestamps are not needed here
            for out in resampler.resample(frame):
                yield out.to_ndarray().reshape(-1).astype(np.float32) / 32768.0


def _frames(container) -> Iterator[av.AudioFrame]:
    for packet in container.demux(container.streams.audio[0]):
        try:
            yield from packet.decode()
        except av.error.InvalidDataError:  # a corrupt packet costs its few ms, not the file
            continue
