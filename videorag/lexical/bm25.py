"""Okapi BM25 as compressed sparse arrays (numpy only): scoring a query reads the columns of its
terms, so it costs the postings of those terms, not the collection. Each term's postings are
kept best first (impact order), so the k best documents can be found from the heads of the
columns alone (`top`). The arrays can be saved with the index and memory-mapped back (`arrays` /
`from_arrays`): opening costs nothing per document."""

from __future__ import annotations

import os
import warnings
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from typing import Any

import numpy as np

from ..analysis import tokenize
from ..vectors.mapped import release

BLOCK = 100_000  # documents counted at a time: Python lists never hold more than a block's terms
SAMPLE = 65_536  # documents whose scores stand for the collection's in `spread`
ARRAYS = ("tf_indptr", "tf_indices", "tf_counts", "lengths", "w_indptr", "w_rows", "w_data", "idf", "avg_length")


class TermCounts:
    """Term counts of documents added a block at a time (`add`), kept as numpy arrays (a Python
    list of every term of 10M documents would take gigabytes), into one growing vocabulary."""

    def __init__(self, analyzer: Callable[[str], list[str]] = tokenize):
        self.analyzer = analyzer
        self.vocab: dict[str, int] = {}
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def add(self, texts: Iterable[str]) -> None:
        cols: list[int] = []
        counts: list[int] = []
        sizes: list[int] = []
        lengths: list[int] = []
        for text in texts:
            terms = Counter(self.analyzer(text))
            cols.extend(self.vocab.setdefault(term, len(self.vocab)) for term in terms)
            counts.extend(terms.values())
            sizes.append(len(terms))
            lengths.append(sum(terms.values()))
        arrays = (cols, np.int32), (counts, np.float32), (sizes, np.int64), (lengths, np.float32)
        self.parts.append(tuple(np.asarray(values, dtype) for values, dtype in arrays))  # type: ignore[arg-type]

    def add_all(self, blocks: Iterable[Sequence[str]], workers: int = 1) -> None:
        """`add` each block, counted in `workers` processes (a block's own vocabulary, merged here
        in block order: the same vocabulary and arrays as adding them one by one)."""
        if workers <= 1:
            for block in blocks:
                self.add(block)
            return
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # fork: a spawned worker would run the caller's main script again (one without a guard).
        # The workers only tokenise, never touch LanceDB: its fork warning does not apply to them.
        with warnings.catch_warnings(), ProcessPoolExecutor(workers, multiprocessing.get_context("fork")) as pool:
            warnings.filterwarnings("ignore", "lancedb fork support", RuntimeWarning)
            pending: deque = deque()
            for block in blocks:
                pending.append(pool.submit(_counted, block, self.analyzer))
                if len(pending) > workers:  # a few blocks in flight, not every text of the level
                    self._merge(*pending.popleft().result())
            while pending:
                self._merge(*pending.popleft().result())

    def _merge(self, terms: list[str], cols: np.ndarray, *rest: np.ndarray) -> None:
        remap = np.asarray([self.vocab.setdefault(term, len(self.vocab)) for term in terms], np.int32)
        self.parts.append((remap[cols] if len(cols) else cols, *rest))  # type: ignore[arg-type]

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(indptr, term columns, counts, lengths) of every document added, CSR by document."""
        cols, counts, sizes, lengths = (
            np.concatenate([part[i] for part in self.parts]) if self.parts else np.zeros(0, dtype)
            for i, dtype in enumerate((np.int32, np.float32, np.int64, np.float32))
        )
        self.parts = []
        return np.r_[0, np.cumsum(sizes)].astype(np.int64), cols, counts, lengths


def workers(documents: int) -> int:
    """Processes to count `documents` in: one per core, one per block at most (small levels: 1)."""
    return min(os.cpu_count() or 1, documents // BLOCK)


def _counted(texts: Sequence[str], analyzer: Callable[[str], list[str]]) -> tuple:
    """(terms, columns, counts, sizes, lengths) of one block counted against its own vocabulary."""
    counts = TermCounts(analyzer)
    counts.add(texts)
    return (list(counts.vocab), *counts.parts[0])


class BM25:
    """Built from texts (`BM25(texts)`) or from saved arrays (`BM25.from_arrays`). Holds the term
    counts per document (rows, for scores inside a span of documents) and the BM25 weights per
    term (columns, for scores over the collection)."""

    def __init__(
        self,
        texts: Sequence[str] | None = None,
        k1: float = 1.2,
        b: float = 0.75,
        analyzer: Callable[[str], list[str]] = tokenize,
    ):
        self.analyzer = analyzer
        self.k1, self.b = k1, b
        self._rows: Any = None  # scipy CSR matrix of normalised weight rows, made by `doc_vectors`
        if texts is not None:
            self._build(texts)

    def _build(self, texts: Sequence[str]) -> None:
        counts = TermCounts(self.analyzer)
        counts.add_all((texts[lo : lo + BLOCK] for lo in range(0, len(texts), BLOCK)), workers(len(texts)))
        self.use(counts)

    def use(self, counts: TermCounts) -> None:
        """Weigh the documents counted in `counts` (their vocabulary becomes this one's)."""
        self.vocab = counts.vocab
        self._set(*counts.arrays())

    def _set(
        self,
        indptr: np.ndarray,
        cols: np.ndarray,
        counts: np.ndarray,
        lengths: np.ndarray,
        collection: tuple[np.ndarray, float] | None = None,
    ) -> None:
        """Term counts (CSR) → BM25 weights per term (CSC, each term's postings best first);
        `collection`: the (idf, average length) to weigh by, when the documents are part of a
        larger collection."""
        self.size = len(lengths)
        self.tf_indptr, self.tf_indices, self.tf_counts, self.lengths = indptr, cols, counts, lengths
        n_terms = max(len(self.vocab), 1)
        df = np.bincount(cols, minlength=n_terms).astype(np.float32)
        n = max(self.size, 1)
        self.idf = np.log1p((n - df + 0.5) / (df + 0.5)).astype(np.float32) if collection is None else collection[0]
        mean = collection[1] if collection is not None else float(lengths.mean()) if len(lengths) else 1.0
        self.avg_length = np.asarray([mean], np.float64)
        rows = np.repeat(np.arange(self.size, dtype=np.int32), np.diff(indptr))
        weights = self._weights(counts, self._norm(lengths)[rows], self.idf[cols])
        order = np.lexsort((-weights, cols))
        self.w_rows, self.w_data = rows[order], weights[order].astype(np.float32)
        self.w_indptr = np.r_[0, np.cumsum(df, dtype=np.int64)]

    def _norm(self, lengths: np.ndarray, mean: float | None = None) -> np.ndarray:
        """k1·(1 − b + b·length / mean length); `mean`: of these `lengths` (else the collection's)."""
        if mean is None:
            mean = float(self.avg_length[0])
        return self.k1 * (1 - self.b + self.b * lengths / max(mean, 1e-9))

    def _weights(self, counts: np.ndarray, norm: np.ndarray, idf) -> np.ndarray:
        return counts * (self.k1 + 1) / (counts + norm) * idf

    # -- saving ----------------------------------------------------------------------------
    def arrays(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in ARRAYS}

    @classmethod
    def from_arrays(
        cls, arrays: dict[str, np.ndarray], vocab: dict[str, int], analyzer: Callable[[str], list[str]] = tokenize
    ) -> BM25:
        bm25 = cls(analyzer=analyzer)
        bm25.vocab = vocab
        for name in ARRAYS:
            setattr(bm25, name, arrays[name])
        bm25.size = len(arrays["lengths"])
        return bm25

    def extended(self, other: BM25) -> BM25:
        """This collection followed by `other`'s documents: term counts appended (the other's
        terms mapped into this vocabulary), weights recomputed over both; no text re-read."""
        out = BM25(k1=self.k1, b=self.b, analyzer=self.analyzer)
        out.vocab = dict(self.vocab)
        terms = sorted(other.vocab, key=other.vocab.__getitem__)
        remap = np.asarray([out.vocab.setdefault(t, len(out.vocab)) for t in terms], np.int32)
        indptr = np.r_[np.asarray(self.tf_indptr), self.tf_indptr[-1] + np.asarray(other.tf_indptr[1:])]
        cols = np.r_[np.asarray(self.tf_indices), remap[other.tf_indices] if len(remap) else np.zeros(0, np.int32)]
        out._set(
            indptr.astype(np.int64),
            cols.astype(np.int32),
            np.r_[self.tf_counts, other.tf_counts],
            np.r_[self.lengths, other.lengths].astype(np.float32),
        )
        return out

    def subset(self, rows: np.ndarray) -> BM25:
        """Documents `rows` (in that order) as a BM25 that scores them as this one does: the
        same vocabulary, idf and average length (a shard of the collection,
        `videorag.shard`)."""
        out = BM25(k1=self.k1, b=self.b, analyzer=self.analyzer)
        out.vocab = self.vocab
        indptr = np.asarray(self.tf_indptr)
        starts, sizes = indptr[rows], indptr[np.asarray(rows) + 1] - indptr[rows]
        new_indptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
        take = np.repeat(starts - new_indptr[:-1], sizes) + np.arange(new_indptr[-1])
        lengths = np.asarray(self.lengths)
        out._set(
            new_indptr,
            np.asarray(self.tf_indices)[take],
            np.asarray(self.tf_counts)[take],
            lengths[rows].astype(np.float32),
            (np.asarray(self.idf), float(self.avg_length[0])),
        )
        return out

    # -- scoring ---------------------------------------------------------------------------
    def _query(self, query: str) -> tuple[list[int], np.ndarray]:
        terms = Counter(t for t in self.analyzer(query) if t in self.vocab)
        return [self.vocab[t] for t in terms], np.fromiter(terms.values(), np.float32, len(terms))

    def scores(self, query: str) -> np.ndarray:
        out = np.zeros(self.size, np.float32)
        for col, weight in zip(*self._query(query), strict=True):
            lo, hi = self.w_indptr[col], self.w_indptr[col + 1]
            out[self.w_rows[lo:hi]] += weight * self.w_data[lo:hi]
        return out

    def row_scores(self, query: str, rows: np.ndarray) -> np.ndarray:
        """`scores(query)[rows]`, from those documents' term counts alone (the same float32s)."""
        return self._row_scores(*self._query(query), np.asarray(rows, np.int64))

    def _row_scores(self, cols: list[int], weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        out = np.zeros(len(rows), np.float32)
        if not cols or not len(rows):
            return out
        starts = np.asarray(self.tf_indptr[rows])
        sizes = np.asarray(self.tf_indptr[rows + 1]) - starts
        bounds = np.cumsum(sizes)  # each document's end in the gathered terms
        at = np.repeat(starts - bounds + sizes, sizes) + np.arange(int(bounds[-1]))
        terms = np.asarray(self.tf_indices[at])
        norm = self._norm(np.asarray(self.lengths[rows]))
        for col, weight in zip(cols, weights, strict=True):  # in `scores`' order: the same sums
            hit = np.flatnonzero(terms == col)  # counts and owners read at the hits alone
            where = np.searchsorted(bounds, hit, "right")
            out[where] += weight * self._weights(np.asarray(self.tf_counts[at[hit]]), norm[where], self.idf[col])
        return out

    def top(self, query: str, k: int, reads: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(rows, scores) of the `k` best documents, best first (equal scores: any of them). The
        threshold algorithm over impact-ordered postings: read each query term's best postings,
        score exactly the documents found that could still be among the k best (`_contenders`),
        and stop once the k-th best is at least what a document not yet seen could score
        (Σ weight × each term's next posting); else read 4× deeper. `reads`: at most that many
        postings per term — past it, the best of those read (approximate, as an ANN's short
        list: on real transcripts 4·k reads keep 0.99 of the exact top 10;
        `tests/retrieve/test_bm25.py`)."""
        cols, weights = self._query(query)
        if not cols or k <= 0 or not self.size:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        lo = np.asarray(self.w_indptr)[cols]
        hi = np.asarray(self.w_indptr)[np.asarray(cols) + 1]
        depth, most = k, reads or int((hi - lo).max())
        while True:
            ends = np.minimum(lo + min(depth, most), hi)
            rows = self._contenders(k, weights, lo, ends, hi)
            scores = self._row_scores(cols, weights, rows)
            if depth >= most or self._settled(scores, k, weights, ends, hi):
                best = np.argsort(-scores, kind="stable")[:k]
                return rows[best], scores[best]
            depth *= 4

    def _contenders(self, k: int, weights: np.ndarray, lo: np.ndarray, ends: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """The documents in the postings read (lo..ends of each term) that could be among the k
        best of them, ascending: each one's score is at least the sum of its postings read and
        at most that plus, for every term it was not found under, the term's next posting. A
        document whose most is below the k-th best least cannot be (long documents: most of
        those found need no exact score)."""
        found = [np.asarray(self.w_rows[a:b]) for a, b in zip(lo, ends, strict=True)]
        rows, at = np.unique(np.concatenate(found), return_inverse=True)
        if len(rows) <= k:
            return rows.astype(np.int64)
        bound = np.asarray(
            [w * float(self.w_data[e]) if e < h else 0.0 for w, e, h in zip(weights, ends, hi, strict=True)]
        )
        parts = [np.asarray(self.w_data[a:b], np.float64) * w for a, b, w in zip(lo, ends, weights, strict=True)]
        least = np.bincount(at, np.concatenate(parts), len(rows))
        seen = np.bincount(at, np.repeat(bound, [len(f) for f in found]), len(rows))
        most = least + (bound.sum() - seen)
        kth = float(np.partition(least, len(least) - k)[len(least) - k])
        return rows[most >= kth * (1 - 1e-5)].astype(np.int64)

    def _settled(self, scores: np.ndarray, k: int, weights: np.ndarray, ends: np.ndarray, hi: np.ndarray) -> bool:
        """Whether no unread document can beat the k-th best of `scores` (float32 sums: a
        millionth of slack)."""
        if (ends >= hi).all():
            return True
        unseen = float(sum(w * self.w_data[e] for w, e, h in zip(weights, ends, hi, strict=True) if e < h))
        return len(scores) >= k and float(np.partition(scores, len(scores) - k)[len(scores) - k]) >= unseen * (1 - 1e-6)

    def spread(self, query: str) -> tuple[float, float, float]:
        """(least, Σ, Σ²) of every document's score, estimated from `SAMPLE` documents spread
        evenly over the collection (exact when it has no more): the range and deviation that
        fusion over candidates needs without scoring every document."""
        sample = self._sample
        scores = sample.scores(query).astype(np.float64)
        scale = self.size / max(sample.size, 1)
        least = float(scores.min()) if len(scores) else 0.0
        return least, float(scores.sum()) * scale, float(scores @ scores) * scale

    @cached_property
    def _sample(self) -> BM25:
        if self.size <= SAMPLE:
            return self
        sample = self.subset(np.unique(np.linspace(0, self.size - 1, SAMPLE).astype(np.int64)))
        release(self.tf_indptr, self.tf_indices, self.tf_counts, self.lengths)  # rows all over the files
        return sample

    def local_scores(self, lo: int, hi: int, query: str) -> np.ndarray:
        """BM25 of documents lo..hi-1 as a collection of their own: document frequencies and
        average length counted over those documents only (e.g. one video's segments), so terms
        they all share weigh little. No re-tokenising: it reuses the stored term counts."""
        cols, weights = self._query(query)
        if not cols or hi <= lo:
            return np.zeros(max(hi - lo, 0), np.float32)
        counts = self._counts(lo, hi, cols)
        n = hi - lo
        df = (counts > 0).sum(axis=0)
        idf = np.log1p((n - df + 0.5) / (df + 0.5))
        lengths = np.asarray(self.lengths[lo:hi], np.float64)
        norm = self._norm(lengths, float(lengths.mean()))
        scored = self._weights(counts, norm[:, None], idf)
        return (scored @ weights.astype(np.float64)).astype(np.float32)

    def _counts(self, lo: int, hi: int, cols: list[int]) -> np.ndarray:
        """(hi − lo, len(cols)) dense term counts of documents lo..hi-1."""
        a, b = self.tf_indptr[lo], self.tf_indptr[hi]
        indices, counts = np.asarray(self.tf_indices[a:b]), np.asarray(self.tf_counts[a:b], np.float64)
        rows = np.repeat(np.arange(hi - lo), np.diff(np.asarray(self.tf_indptr[lo : hi + 1])))
        out = np.zeros((hi - lo, len(cols)))
        for j, col in enumerate(cols):
            hit = indices == col
            out[rows[hit], j] = counts[hit]
        return out

    def doc_vectors(self, rows: np.ndarray):
        """The documents' BM25 term-weight vectors (scipy CSR), L2-normalised (cosine = dot)."""
        if self._rows is None:
            from scipy import sparse

            csc = sparse.csc_matrix((self.w_data, self.w_rows, self.w_indptr), shape=(self.size, len(self.idf)))
            csr = csc.tocsr()
            norms = np.sqrt(np.asarray(csr.multiply(csr).sum(axis=1)).ravel())
            self._rows = sparse.diags(1 / np.maximum(norms, 1e-12)) @ csr
        return self._rows[rows]
