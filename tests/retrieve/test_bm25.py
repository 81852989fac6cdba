"""BM25's short lists: the k best documents from impact-ordered postings (`top`), scores of given
documents (`row_scores`), the collection's spread from a sample (`spread`), and the fusion over
short lists that a compressed (IVF-PQ) level uses (`short_alpha_fuse`)."""

import numpy as np
import pytest

from videorag.config import SearchConfig
from videorag.embed.hashing import HashingEmbedder
from videorag.methods.text import candidate_alpha_fuse, fuses_short, short_alpha_fuse
from videorag.retrieve import Corpus, Level, Searcher
from videorag.lexical import bm25
from videorag import snapshot
from videorag.lexical.bm25 import BM25
from videorag.vectors.ivf import IVF
from videorag.vectors.ivfpq import IVFPQ


def _texts(n: int, seed: int = 0) -> list[str]:
    """Documents of 6–30 words from a Zipf-like vocabulary of 2,000 (common words and a long tail)."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(2000)]
    p = 1 / np.arange(1, 2001)
    p /= p.sum()
    return [" ".join(rng.choice(vocab, size=rng.integers(6, 31), p=p)) for _ in range(n)]


QUERIES = ["w3 w17 w250", "w1 w2", "w1999 w1500 w40 w7", "w0", "nothing here", "w12 w12 w900"]


@pytest.fixture(scope="module")
def index() -> BM25:
    return BM25(_texts(4000))


def test_postings_are_kept_best_first_and_score_as_before(index):
    for col in range(0, len(index.vocab), 97):
        lo, hi = index.w_indptr[col], index.w_indptr[col + 1]
        assert np.all(np.diff(index.w_data[lo:hi]) <= 0)
    rows = np.array([0, 5, 17, 3999, 5])
    for query in QUERIES:
        assert np.array_equal(index.row_scores(query, rows), index.scores(query)[rows])  # the same float32s


@pytest.mark.parametrize("k", [1, 10, 300])
def test_top_finds_the_k_best_documents(index, k):
    for query in QUERIES:
        rows, scores = index.top(query, k)
        full = index.scores(query)
        best = np.sort(full[full > 0])[::-1][:k]
        assert np.array_equal(scores, best)  # the k best scores, best first
        assert np.array_equal(full[rows], scores) and len(set(rows.tolist())) == len(rows)


def test_top_with_few_reads_keeps_most_of_the_best(index):
    kept = []
    for query in QUERIES[:4] + ["w5 w60 w61", "w8 w300", "w2 w33 w34 w35", "w100 w101 w7"]:
        rows, scores = index.top(query, 100, reads=400)  # as fusion asks: a short list 4× read
        full = index.scores(query)
        assert np.array_equal(full[rows], scores) and np.all(np.diff(scores) <= 0)  # exact scores, best first
        kept.append(np.sum(scores[:10] >= np.sort(full)[-10]) / 10)  # its 10 best are the 10 best (ties: any)
    assert 0.95 <= np.mean(kept), kept


def test_spread_is_exact_for_a_small_collection_and_close_from_a_sample(index, monkeypatch):
    for query in QUERIES:
        full = index.scores(query).astype(np.float64)
        least, total, squares = index.spread(query)
        assert least == full.min() and total == pytest.approx(full.sum()) and squares == pytest.approx(full @ full)
    monkeypatch.setattr(bm25, "SAMPLE", 1000)
    sampled = BM25(_texts(4000))
    for query in ("w3 w17 w250", "w1 w2"):
        full = sampled.scores(query).astype(np.float64)
        _, total, squares = sampled.spread(query)
        assert total == pytest.approx(full.sum(), rel=0.15) and squares == pytest.approx(full @ full, rel=0.25)


def _compressed_corpus(videos: int = 40, per_video: int = 15) -> tuple[Corpus, HashingEmbedder]:
    embedder = HashingEmbedder()
    texts = _texts(videos * per_video, seed=1)
    owner = np.repeat(np.arange(videos), per_video)
    starts = np.tile(np.arange(per_video) * 5.0, videos)
    segments = Level.build(owner, starts, starts + 4.5, texts, embedder.embed(texts))
    segments.ann = IVFPQ.build(np.asarray(segments.vectors))
    whole = [" ".join(texts[v * per_video : (v + 1) * per_video]) for v in range(videos)]
    level = Level.build(np.arange(videos), np.zeros(videos), np.full(videos, 75.0), whole, embedder.embed(whole))
    ids = [f"v{v}" for v in range(videos)]
    return Corpus(ids, [f"/{i}.mp4" for i in ids], segments, level, level), embedder


def test_fusion_over_short_lists_equals_fusion_over_every_item_when_the_lists_hold_them():
    corpus, embedder = _compressed_corpus()
    n = len(corpus.video_ids)
    assert corpus.segments.ann.short
    for query in QUERIES[:4]:
        for correction in (0.0, 1.0):
            config = SearchConfig(candidates=len(corpus.segments), ann_shortlist=len(corpus.segments))
            qc = Searcher(corpus, embedder).context(query, config)
            short = short_alpha_fuse(qc, corpus.segments, n, 0.6, correction)
            every = candidate_alpha_fuse(qc, corpus.segments, n, 0.6, correction)
            assert np.allclose(short, every, atol=1e-5)


@pytest.mark.parametrize("videos_kind", ["ivf-pq", "ivf-flat"])
def test_every_ann_level_of_a_compressed_corpus_fuses_over_short_lists(tmp_path, videos_kind):
    corpus, embedder = _compressed_corpus()
    corpus.segments.ann = None
    snapshot.save(corpus, tmp_path, "t", ann_min_rows=30, compress_rows=500)  # 600 segments, 40 videos
    loaded = snapshot.load(tmp_path, "t")
    assert loaded.segments.ann.kind == "ivf-pq" and loaded.videos.ann.kind == "ivf-pq"  # compressed with them
    if videos_kind == "ivf-flat":  # as a snapshot saved before every level was compressed: its candidates cut
        loaded.videos.ann = IVF.build(np.asarray(loaded.videos.vectors))
    assert fuses_short(loaded, loaded.segments) and fuses_short(loaded, loaded.videos)
    plain, _ = _compressed_corpus()
    assert not fuses_short(plain, plain.videos)  # no ANN there
    n = len(loaded.video_ids)
    for query in QUERIES[:4]:
        config = SearchConfig(candidates=n, ann_shortlist=n, ann_probes=10_000)  # the lists hold every video
        qc = Searcher(loaded, embedder).context(query, config)
        short = short_alpha_fuse(qc, loaded.videos, n, 0.6, 1.0)
        assert np.allclose(short, candidate_alpha_fuse(qc, loaded.videos, n, 0.6, 1.0), atol=1e-5)
        cut = SearchConfig(candidates=n, ann_shortlist=5, ann_probes=10_000)  # the 5 nearest keep their dense part
        qc = Searcher(loaded, embedder).context(query, cut)
        rows, dense = qc.candidates(loaded.videos)
        near = rows[np.argsort(-dense)[:5]]
        scores = short_alpha_fuse(qc, loaded.videos, n, 1.0, 0.0)  # dense alone, over the 5 nearest
        assert scores[near[0]] == pytest.approx(1.0) and not np.delete(scores, near).any()


def test_fusion_over_short_lists_keeps_the_best_videos():
    corpus, embedder = _compressed_corpus(videos=200, per_video=10)
    n, same = len(corpus.video_ids), []
    config = SearchConfig(candidates=50, ann_shortlist=50)
    for query in QUERIES[:4] + ["w5 w60 w61", "w8 w300", "w2 w33 w34 w35"]:
        qc = Searcher(corpus, embedder).context(query, config)
        short = short_alpha_fuse(qc, corpus.segments, n, 0.6, 1.0)
        every = candidate_alpha_fuse(qc, corpus.segments, n, 0.6, 1.0)
        same.append(len(set(np.argsort(-short)[:5]) & set(np.argsort(-every)[:5])) / 5)
    assert np.mean(same) >= 0.8, same


def test_term_counts_from_worker_processes_equal_those_counted_here():
    texts = _texts(3000, seed=2)
    blocks = [texts[lo : lo + 700] for lo in range(0, len(texts), 700)]
    here, there = bm25.TermCounts(), bm25.TermCounts()
    here.add_all(blocks)
    there.add_all(iter(blocks), workers=2)
    assert here.vocab == there.vocab
    for a, b in zip(here.arrays(), there.arrays()):
        assert np.array_equal(a, b)
