"""A search corpus over untimed transcripts ({video_id: text}), the VideoRAG bench's setting:
each transcript stands for its video's subtitles / ASR text. Retrieval over it goes through the
same registered methods and searcher as `videorag search` — only the corpus is built here.

Levels (times are word offsets):
- segments: `segment_words`-word pieces over the whole transcript (evidence anywhere in it; off
  by default: embedding the bench's 59k pieces takes long on 2 cores, and no shipped method
  scores videos by them on the bench);
- chunks: the opening pieces — `intro_words`, then `pieces − 1` of `piece_words` — where how-to
  videos say what they are about (the dense video signal of `dense` / `hybrid` / `best`);
- videos: the whole transcript.
Embeddings are the slow part: they are cached in `cache_dir`, keyed by model, settings and texts.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..embed import normalize
from ..errors import ConfigError
from ..snapshot.corpus import Corpus, Level

log = logging.getLogger(__name__)


@dataclass
class TranscriptCorpusConfig:
    intro_words: int = 96  # the first piece: the opening, where the video says what it is
    piece_words: int = 128  # words in each following opening piece
    pieces: int = 2  # opening pieces (the chunk level)
    segment_words: int = 0  # words per segment over the whole transcript; 0 = no segments

    def __post_init__(self) -> None:
        if min(self.intro_words, self.piece_words) < 8 or self.pieces < 1 or self.segment_words < 0:
            raise ConfigError(
                "need intro_words, piece_words >= 8, pieces >= 1 and segment_words >= 0, got "
                f"{self.intro_words}, {self.piece_words}, {self.pieces}, {self.segment_words}",
                "e.g. eval retrieval --pieces 1: the opening 96 words; 2 is the default",
            )


def transcript_corpus(
    transcripts: dict[str, str],
    embedder,
    config: TranscriptCorpusConfig | None = None,
    cache_dir: str | Path | None = None,
    show_progress: bool = False,
) -> Corpus:
    cfg = config or TranscriptCorpusConfig()
    ids = list(transcripts)
    words = [transcripts[v].split() for v in ids]
    chunks = [(row, lo, hi) for row, w in enumerate(words) for lo, hi in _opening(cfg)]
    step = cfg.segment_words
    segments = (
        [(row, lo, min(lo + step, len(w))) for row, w in enumerate(words) for lo in range(0, len(w), step)]
        if step
        else []
    )
    levels = {}
    tags = {
        "chunks": f"chunks-{cfg.intro_words}-{cfg.piece_words}-{cfg.pieces}",
        "segments": f"segments-{cfg.segment_words}",
    }
    for name, units in (("chunks", chunks), ("segments", segments)):
        texts = [" ".join(words[row][lo:hi]) for row, lo, hi in units]
        vectors = _embed(embedder, texts, cache_dir, tags[name], show_progress)
        rows = np.array([u[0] for u in units], np.int32)
        levels[name] = Level.build(
            rows,
            np.array([u[1] for u in units], float),
            np.array([u[2] for u in units], float),
            texts,
            vectors.reshape(len(units), embedder.dim),
        )
    whole = _video_vectors(levels["segments"] if segments else levels["chunks"], len(ids), embedder.dim)
    videos = Level.build(
        np.arange(len(ids), dtype=np.int32),
        np.zeros(len(ids)),
        np.array([len(w) for w in words], float),
        [transcripts[v] for v in ids],
        whole,
    )
    return Corpus(ids, ids, levels["segments"], levels["chunks"], videos)


def _opening(cfg: TranscriptCorpusConfig) -> list[tuple[int, int]]:
    first, n = cfg.intro_words, cfg.piece_words
    return [(0, first)] + [(first + i * n, first + (i + 1) * n) for i in range(cfg.pieces - 1)]


def _video_vectors(segments: Level, n: int, dim: int) -> np.ndarray:
    """A video's vector: the mean of its segments' (as an index's is the mean of its chunks')."""
    out = np.zeros((n, dim), np.float32)
    np.add.at(out, segments.owner, segments.vectors)
    return normalize(out)


def cache_path(embedder, texts: list[str], cache_dir, tag: str) -> Path | None:
    if not cache_dir:
        return None
    key = hashlib.blake2b(digest_size=10)
    runtime = type(embedder).__name__  # the same model on torch and on int8 ONNX: close vectors, not equal
    for part in (embedder.model_name, runtime, tag, *texts):
        key.update(part.encode())
    return Path(cache_dir).expanduser() / f"corpus-{key.hexdigest()}.npy"


def _embed(embedder, texts: list[str], cache_dir, tag: str, show_progress: bool) -> np.ndarray:
    """Embeddings of `texts` (zero rows for empty ones), cached on disk."""
    cache = cache_path(embedder, texts, cache_dir, tag)
    if cache is not None and cache.is_file():
        return np.load(cache)
    vectors = np.zeros((len(texts), embedder.dim), np.float32)
    from tqdm.auto import tqdm

    batch = 2048
    for lo in tqdm(range(0, len(texts), batch), disable=not show_progress, desc=f"embedding {tag.split('-')[0]}"):
        keep = [i for i, t in enumerate(texts[lo : lo + batch]) if t]
        if keep:
            vectors[lo + np.asarray(keep)] = embedder.embed([texts[lo + i] for i in keep])
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.save(cache, vectors)
    return vectors
