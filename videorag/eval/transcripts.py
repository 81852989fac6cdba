"""Retrieval over a transcript corpus ({video_id: text}, no timestamps), the VideoRAG bench's
setting: each transcript stands for its video's subtitles / ASR text.

Features per video, computed once and cached (embeddings are the slow part):
- lexical: BM25 over the whole transcript (stemmed unigrams) and over stem bigrams (phrases);
- dense: the embedder over the transcript's opening pieces — where how-to videos say what they
  are about — scored by the best piece.

Methods (by name): `bm25`, `dense`, `hybrid` (α·dense + (1−α)·BM25), and `best`, the shipped
text-only method, in two stages:
1. hybrid with the phrase signal in the lexical part, plus the dense score of the item's question
   phrasing when the dataset gives one (WikiHowQA's "How To …" next to the task title);
2. the top `rerank_depth` are re-scored by centrality (the cluster hypothesis): cosine of each
   video's BM25 term vector to the others', weighted by their first-stage scores. The videos a
   search engine returns for a task share vocabulary; the most typical of them ranks high.
"""
from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ConfigError
from ..retrieve.bm25 import BM25
from ..retrieve.fusion import minmax
from ..retrieve.text import bigrams

log = logging.getLogger(__name__)
METHODS = ("bm25", "dense", "hybrid", "best")


@dataclass
class TranscriptIndexConfig:
    intro_words: int = 96         # the first piece: the opening, where the video says what it is
    piece_words: int = 128        # words in each following piece
    pieces: int = 2               # pieces embedded per transcript, from the start
    alpha: float = 0.5            # dense weight in `hybrid` and `best`
    bigram_weight: float = 0.2    # share of the phrase signal inside the lexical score of `best`
    question_weight: float = 0.6  # `best`: weight of the question phrasing's dense score
    rerank_depth: int = 30        # `best`: first-stage videos re-scored by centrality
    centrality_weight: float = 1.5
    centroid_power: float = 3.0   # first-stage scores (in [0, 1]) are raised to this as neighbour weights

    def __post_init__(self) -> None:
        if min(self.intro_words, self.piece_words) < 8 or self.pieces < 1 or self.rerank_depth < 1:
            raise ConfigError("need intro_words, piece_words >= 8 and pieces, rerank_depth >= 1, got "
                              f"{self.intro_words}, {self.piece_words}, {self.pieces}, {self.rerank_depth}")
        if min(self.question_weight, self.centrality_weight, self.centroid_power) < 0:
            raise ConfigError("question_weight, centrality_weight and centroid_power must be >= 0")
        for name in ("alpha", "bigram_weight"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ConfigError(f"`{name}` must be in [0, 1], got {getattr(self, name)!r}")


class TranscriptIndex:
    def __init__(self, transcripts: dict[str, str], embedder, config: TranscriptIndexConfig | None = None,
                 cache_dir: str | Path | None = None, show_progress: bool = False):
        self.config = config or TranscriptIndexConfig()
        self.ids = list(transcripts)
        self.embedder = embedder
        texts = [transcripts[v] for v in self.ids]
        start = time.perf_counter()
        self.unigram = BM25(texts)
        self.bigram = BM25(texts, analyzer=bigrams)
        self.lexical_seconds = time.perf_counter() - start
        start = time.perf_counter()
        self.vectors = self._embed(texts, cache_dir, show_progress)   # (videos, pieces, dim)
        self.dense_seconds = time.perf_counter() - start

    def _pieces(self, text: str) -> list[str]:
        words, first, n = text.split(), self.config.intro_words, self.config.piece_words
        bounds = [(0, first)] + [(first + i * n, first + (i + 1) * n) for i in range(self.config.pieces - 1)]
        return [" ".join(words[lo:hi]) for lo, hi in bounds]

    def _embed(self, texts: list[str], cache_dir, show_progress: bool) -> np.ndarray:
        cfg = self.config
        key = hashlib.blake2b(digest_size=10)
        for part in (self.embedder.model_name, str(cfg.intro_words), str(cfg.piece_words), str(cfg.pieces),
                     *self.ids, *texts):
            key.update(part.encode())
        cache = Path(cache_dir).expanduser() / f"transcripts-{key.hexdigest()}.npy" if cache_dir else None
        if cache is not None and cache.is_file():
            return np.load(cache)
        pieces = [p for t in texts for p in self._pieces(t)]
        vectors = np.zeros((len(pieces), self.embedder.dim), np.float32)
        batch = 2048
        from tqdm.auto import tqdm

        for lo in tqdm(range(0, len(pieces), batch), disable=not show_progress, desc="embedding transcripts"):
            chunk = pieces[lo:lo + batch]
            keep = [i for i, p in enumerate(chunk) if p]
            if keep:
                vectors[lo + np.asarray(keep)] = self.embedder.embed([chunk[i] for i in keep])
        vectors = vectors.reshape(len(texts), cfg.pieces, -1)
        if cache is not None:
            cache.parent.mkdir(parents=True, exist_ok=True)
            np.save(cache, vectors)
        return vectors

    # -- scoring --------------------------------------------------------------------------------
    def dense(self, query: str, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """Best-piece similarity of `query` to each video (or to the videos at `rows`)."""
        qvec = self.embedder.embed([query])[0]
        return (self.vectors[rows] @ qvec).max(axis=1)

    def lexical(self, query: str, phrase: bool) -> np.ndarray:
        scores = self.unigram.scores(query)
        if not phrase:
            return scores
        w = self.config.bigram_weight
        return (1 - w) * minmax(scores) + w * minmax(self.bigram.scores(query))

    def scores(self, method: str, query: str) -> np.ndarray:
        """One-stage scores of every video (`best` is ranked by `rank`, not scored here)."""
        a = self.config.alpha
        if method == "bm25":
            return self.unigram.scores(query)
        if method == "dense":
            return self.dense(query)
        if method in ("hybrid", "best"):
            return a * minmax(self.dense(query)) + (1 - a) * minmax(self.lexical(query, phrase=method == "best"))
        raise ConfigError(f"unknown retrieval method {method!r}", f"choose one of: {', '.join(METHODS)}")

    def rank(self, method: str, query: str, k: int = 10, question: str | None = None) -> list[str]:
        """The `k` best video ids. `question` is another phrasing of the query (used by `best`)."""
        scores = self.scores(method, query)
        order = _top(scores, max(k, self.config.rerank_depth) if method == "best" else k)
        if method == "best":
            order = self._rerank(order, scores, question)
        return [self.ids[i] for i in order[:k]]

    def _rerank(self, order: np.ndarray, scores: np.ndarray, question: str | None) -> np.ndarray:
        cfg = self.config
        head = order[:cfg.rerank_depth]
        base = minmax(scores[head])
        if question and cfg.question_weight:
            base = base + cfg.question_weight * minmax(self.dense(question, head))
        vectors = self.unigram.doc_vectors(head)
        similarity = (vectors @ vectors.T).toarray()
        base = base + cfg.centrality_weight * minmax(similarity @ minmax(base) ** cfg.centroid_power)
        return np.concatenate([head[np.argsort(-base, kind="stable")], order[cfg.rerank_depth:]])


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the `k` highest scores, best first."""
    k = min(k, len(scores))
    top = np.argpartition(-scores, k - 1)[:k]
    return top[np.argsort(-scores[top], kind="stable")]
