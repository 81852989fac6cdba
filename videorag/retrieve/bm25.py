"""Okapi BM25 over a sparse term-weight matrix: scoring a query is one sparse mat-vec."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np
from scipy import sparse

from .text import tokenize


class BM25:
    def __init__(self, texts: list[str], k1: float = 1.2, b: float = 0.75,
                 analyzer: Callable[[str], list[str]] = tokenize):
        self.analyzer = analyzer
        self.k1, self.b = k1, b
        self.vocab: dict[str, int] = {}
        rows, cols, counts = [], [], []
        lengths = np.zeros(len(texts), np.float32)
        for row, text in enumerate(texts):
            terms = Counter(analyzer(text))
            lengths[row] = sum(terms.values())
            for term, count in terms.items():
                rows.append(row)
                cols.append(self.vocab.setdefault(term, len(self.vocab)))
                counts.append(count)
        tf = sparse.csr_matrix((np.asarray(counts, np.float32), (rows, cols)),
                               shape=(len(texts), max(len(self.vocab), 1)))
        df = np.bincount(tf.indices, minlength=tf.shape[1]).astype(np.float32)
        n = max(len(texts), 1)
        self.idf = np.log1p((n - df + 0.5) / (df + 0.5)).astype(np.float32)
        norm = k1 * (1 - b + b * lengths / max(float(lengths.mean()) if len(texts) else 1.0, 1e-9))
        data = tf.data * (k1 + 1) / (tf.data + np.repeat(norm, np.diff(tf.indptr)))
        weights = sparse.csr_matrix((data * self.idf[tf.indices], tf.indices, tf.indptr), shape=tf.shape)
        self._weights = weights.tocsc()
        self._tf, self._lengths = tf, lengths
        self._rows: sparse.csr_matrix | None = None
        self.size = len(texts)

    def doc_vectors(self, rows: np.ndarray) -> sparse.csr_matrix:
        """The documents' BM25 term-weight vectors, L2-normalised (cosine = dot product)."""
        if self._rows is None:
            csr = self._weights.tocsr()
            norms = np.sqrt(np.asarray(csr.multiply(csr).sum(axis=1)).ravel())
            self._rows = sparse.diags(1 / np.maximum(norms, 1e-12)) @ csr
        return self._rows[rows]

    def local_scores(self, lo: int, hi: int, query: str) -> np.ndarray:
        """BM25 of documents lo..hi-1 as a collection of their own: document frequencies and
        average length counted over those documents only (e.g. one video's segments), so terms
        they all share weigh little. No re-tokenising: it reuses the stored term counts."""
        terms = Counter(t for t in self.analyzer(query) if t in self.vocab)
        if not terms or hi <= lo:
            return np.zeros(max(hi - lo, 0), np.float32)
        counts = self._tf[lo:hi][:, [self.vocab[t] for t in terms]].toarray()
        n = hi - lo
        df = (counts > 0).sum(axis=0)
        idf = np.log1p((n - df + 0.5) / (df + 0.5))
        lengths = self._lengths[lo:hi]
        norm = self.k1 * (1 - self.b + self.b * lengths / max(float(lengths.mean()), 1e-9))
        weights = counts * (self.k1 + 1) / (counts + norm[:, None]) * idf
        return (weights @ np.fromiter(terms.values(), np.float64, len(terms))).astype(np.float32)

    def scores(self, query: str) -> np.ndarray:
        terms = Counter(t for t in self.analyzer(query) if t in self.vocab)
        if not terms:
            return np.zeros(self.size, np.float32)
        cols = [self.vocab[t] for t in terms]
        weights = np.fromiter(terms.values(), np.float32, len(terms))
        return np.asarray(self._weights[:, cols] @ weights).ravel()
