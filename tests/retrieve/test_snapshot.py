"""The search snapshot (memory-mapped corpus saved beside the index) and its IVF index."""
import random
from pathlib import Path

import numpy as np
import pytest
from conftest import copy

from videorag.config import SearchConfig
from videorag.embed.hashing import HashingEmbedder
from videorag.methods import create_method
from videorag.retrieve import Corpus, Level, Searcher
from videorag.snapshot import build
from videorag import snapshot
from videorag.lexical.bm25 import BM25
from videorag.vectors.ivf import IVF

TOPICS = ["kettle tea", "bicycle tube", "garden hose", "guitar string", "oven bread", "laptop fan"]
STEPS = ["clean", "tighten", "measure", "replace", "heat", "rinse", "glue", "test"]


def _corpus(embedder, videos: int = 30, per_video: int = 12, first: int = 0) -> Corpus:
    """`videos` generated videos, of which those from `first` on are kept."""
    rng = random.Random(0)
    owner, starts, texts = [], [], []
    for v in range(videos):
        for i in range(per_video):
            text = f"{rng.choice(STEPS)} the {TOPICS[v % len(TOPICS)]} part {v} step {i} {rng.choice(STEPS)} again"
            if v >= first:
                owner.append(v - first)
                starts.append(5.0 * i)
                texts.append(text)
    owner, starts, videos = np.array(owner), np.array(starts), videos - first
    segments = Level.build(owner, starts, starts + 4.5, texts, embedder.embed(texts))
    whole = [" ".join(t for o, t in zip(owner, texts) if o == v) for v in range(videos)]
    level = Level.build(np.arange(videos), np.zeros(videos), np.full(videos, 60.0), whole, embedder.embed(whole))
    ids = [f"v{v + first}" for v in range(videos)]
    return Corpus(ids, [f"/{i}.mp4" for i in ids], segments, level, level)


def _hits(corpus, embedder, query, method="textvideorag", moments=False):
    config = SearchConfig()
    found = Searcher(corpus, embedder).search(query, create_method(method, config), config, top_k=5, moments=moments)
    return [(h.video_id, h.start, h.end, round(h.score, 5), h.text) for h in found]


@pytest.mark.parametrize("method", ["textvideorag", "best", "bm25"])
def test_a_loaded_snapshot_searches_like_the_corpus_it_saved(tmp_path, method):
    embedder = HashingEmbedder()
    corpus = _corpus(embedder)
    snapshot.save(corpus, tmp_path, "token-1", ann_min_rows=10_000)
    loaded = snapshot.load(tmp_path, "token-1")
    assert isinstance(loaded.segments.vectors.base, np.memmap)   # mapped, not read
    for query in ("replace the bicycle tube part 7", "how do I heat the oven bread"):
        assert _hits(loaded, embedder, query, method) == _hits(corpus, embedder, query, method)
        assert _hits(loaded, embedder, query, method, True) == _hits(corpus, embedder, query, method, True)
    assert loaded.segments.texts[3:5] == corpus.segments.texts[3:5]
    assert loaded.segments.texts[-1] == corpus.segments.texts[-1]
    assert "bigram_bm25" in vars(loaded.videos)   # `best`'s phrase index came with the snapshot, not built now


def test_a_snapshot_of_another_state_is_not_loaded(tmp_path):
    corpus = _corpus(HashingEmbedder(), videos=3)
    assert snapshot.load(tmp_path, "") is None                       # none saved yet
    snapshot.save(corpus, tmp_path, "token-1", ann_min_rows=10_000)
    assert snapshot.load(tmp_path, "token-2") is None                # the index changed since
    assert not snapshot.fresh(tmp_path)                              # no change marker holds token-1
    (tmp_path / ".changed").write_text("token-1\n")
    assert snapshot.fresh(tmp_path)
    snapshot.save(corpus, tmp_path, "token-3", ann_min_rows=10_000)
    assert len([p for p in (tmp_path / "search").iterdir() if p.is_dir()]) == 1   # the old one is gone


def test_bm25_saved_as_arrays_scores_the_same():
    texts = ["patch the inner tube", "tubes and tires", "bake the bread", ""]
    bm25 = BM25(texts)
    again = BM25.from_arrays(bm25.arrays(), dict(bm25.vocab))
    for query in ("inner tube", "bread tire", "nothing"):
        assert np.array_equal(again.scores(query), bm25.scores(query))
        assert np.array_equal(again.local_scores(0, 3, query), bm25.local_scores(0, 3, query))
    assert bm25.scores("inner tube").argmax() == 0 and bm25.scores("bread").argmax() == 2


def _clustered(n: int, dim: int = 64, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(20, dim))
    x = centres[rng.integers(0, 20, n)] + 0.7 * rng.normal(size=(n, dim))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def test_ivf_probing_every_cell_is_exact_search():
    x = _clustered(3000)
    ivf = IVF.build(x, cells=40)
    assert sorted(ivf.rows.tolist()) == list(range(3000))            # every vector in one cell
    for q in x[:20]:
        rows, scores = ivf.search(q, probes=40)
        assert np.array_equal(np.sort(rows[np.argsort(-scores)[:10]]), np.sort(np.argsort(-(x @ q))[:10]))


def test_ivf_finds_most_true_neighbours_with_few_probes():
    x = _clustered(5000, seed=1)
    ivf = IVF.build(x)            # ≈ 70 cells
    queries = _clustered(50, seed=2)
    recall = np.mean([len(set(ivf.search(q, 8)[0][np.argsort(-ivf.search(q, 8)[1])[:10]])
                          & set(np.argsort(-(x @ q))[:10])) / 10 for q in queries])
    assert recall >= 0.8, recall


def test_a_row_file_reads_the_rows_a_mapped_array_holds(tmp_path):
    from videorag.vectors.mapped import RowFile

    x = _clustered(300)
    np.save(tmp_path / "v.npy", x)
    rows = RowFile(tmp_path / "v.npy")
    assert len(rows) == 300 and np.array_equal(rows[np.array([5, 0, 299])], x[[5, 0, 299]])
    assert np.array_equal(rows[10:20], x[10:20]) and rows[np.array([], int)].shape == (0, 64)
    assert np.array_equal(rows[7], x[7]) and np.array_equal(rows[np.int64(299)], x[299])


def test_ivfpq_short_list_rescored_exactly_finds_most_true_neighbours():
    from videorag.vectors.ivfpq import IVFPQ

    x = _clustered(12_000, seed=1)
    pq = IVFPQ.build(x, codes=16)            # ≈ 110 cells, 16 bytes a vector
    queries = _clustered(50, seed=2)
    recall = []
    for q in queries:
        rows, scores = pq.search(q, probes=16, shortlist=50)
        assert np.allclose(scores, x[rows] @ q, atol=1e-5) and np.all(np.diff(rows) > 0)   # exact, row order
        recall.append(len(set(rows[np.argsort(-scores)[:10]]) & set(np.argsort(-(x @ q))[:10])) / 10)
    assert np.mean(recall) >= 0.8, np.mean(recall)


@pytest.mark.parametrize("kind, compress_rows", [("ivf-flat", 10_000), ("ivf-pq", 600)])
def test_a_large_level_gets_an_ann_index_and_still_finds_the_answer(tmp_path, kind, compress_rows):
    embedder = HashingEmbedder()
    corpus = _corpus(embedder, videos=60)
    found = snapshot.save(corpus, tmp_path, "t", ann_min_rows=500, compress_rows=compress_rows)  # 720 segments
    assert found["levels"]["segment"]["ann"]["kind"] == kind and found["levels"]["video"]["ann"] is None
    loaded = snapshot.load(tmp_path, "t")
    assert loaded.segments.ann.kind == kind
    query = "tighten the guitar string part 45 step 3"
    exact = _hits(_corpus(embedder, videos=60), embedder, query)
    approx = _hits(loaded, embedder, query)
    assert approx[0][:3] == exact[0][:3] and approx[0][0] == "v45"
    vector = embedder.embed([query])[0]
    rows, scores = loaded.segments.ann.search(vector, 2, 50)
    assert np.allclose(scores, np.asarray(loaded.segments.vectors)[rows] @ vector, atol=1e-5)  # exact scores
    dense = loaded.segments.expand(rows, scores)
    outside = np.setdiff1d(np.arange(len(dense)), rows)
    assert len(outside) and np.all(dense[outside] == dense[rows].min())   # the rest rank below


def _spy(corpus_of, calls):
    def spied(index, only=None, into=None):
        calls.append(None if only is None else len(only))
        return corpus_of(index, only, into)
    return spied


def test_search_maps_the_snapshot_ingest_saved_and_follows_later_writes(make_rag, short_video, sample_dir,
                                                                        monkeypatch):
    writer = make_rag()
    writer.add([short_video[0]])
    assert snapshot.fresh(writer.location.local)
    reader = make_rag(writer.location.local)                 # another process's view of the same index
    assert reader.search("how long should the tea steep")[0].video_id == writer.search("tea")[0].video_id
    assert reader.library._index is None                        # served from the snapshot: LanceDB never opened
    bike = copy(sample_dir[0] / "fix-a-flat-bike-tire.mp4", writer.location.local.parent / "v" / "bike.mp4")
    added = []
    monkeypatch.setattr(build, "corpus_of", _spy(build.corpus_of, added))
    writer.add([bike])
    assert added == [1]                                   # the snapshot grew by the one new video
    assert "bike.mp4" in reader.search("find the hole in the inner tube")[0].path
    added.clear()
    _add_directly(writer)                                 # another writer that leaves the snapshot stale
    assert reader.search("how do I oil the bicycle chain")[0].video_id == "chain"
    assert added == [1]                                   # the reader extended it with that video
    writer.library.remove([str(bike)])
    assert not snapshot.fresh(writer.location.local)         # a removal leaves it stale ...
    assert all("bike" not in h.path for h in reader.search("find the hole in the inner tube"))
    assert snapshot.fresh(writer.location.local)             # ... and the next search saved a new one
    assert reader.library.info()["search"]["snapshot"] == "fresh"


def test_fusing_an_ann_levels_candidates_equals_fusing_its_full_arrays(tmp_path):
    from videorag.methods.text import candidate_alpha_fuse
    from videorag.retrieve.fusion import alpha_fuse

    embedder = HashingEmbedder()
    snapshot.save(_corpus(embedder, videos=60), tmp_path, "t", ann_min_rows=500)
    loaded = snapshot.load(tmp_path, "t")
    searcher, config = Searcher(loaded, embedder), SearchConfig(ann_probes=3)
    for query in ("tighten the guitar string part 45", "bread", "zebra crossing"):
        qc = searcher.context(query, config)
        level = loaded.segments
        fused = alpha_fuse(qc.dense(level), qc.lexical(level), 0.6)
        for correction in (0.0, 1.0):
            full = level.per_video_max(fused, len(loaded.video_ids), correction * float(fused.std()))
            fast = candidate_alpha_fuse(qc, level, len(loaded.video_ids), 0.6, correction)
            assert np.allclose(fast, full, atol=1e-5)


@pytest.mark.parametrize("ann_min_rows, compress_rows", [(10_000, 10_000), (300, 10_000), (300, 300)])
def test_a_snapshot_extended_by_new_videos_searches_like_one_built_from_all(tmp_path, ann_min_rows, compress_rows):
    embedder = HashingEmbedder()
    snapshot.save(_corpus(embedder, videos=40), tmp_path / "all", "t", ann_min_rows, compress_rows)
    snapshot.save(_corpus(embedder, videos=30), tmp_path / "old", "t", ann_min_rows, compress_rows)
    old = snapshot.load(tmp_path / "old", "t")
    grown_corpus = old.extended(_corpus(embedder, videos=40, first=30))
    assert (grown_corpus.segments.ann is None) == (ann_min_rows > 1000)    # the index grew with the level
    snapshot.save(grown_corpus, tmp_path / "old", "t2", ann_min_rows, compress_rows)
    grown, full = snapshot.load(tmp_path / "old", "t2"), snapshot.load(tmp_path / "all", "t")
    assert grown.video_ids == full.video_ids and grown.segments.texts[:] == full.segments.texts[:]
    assert np.allclose(np.asarray(grown.segments.vectors), np.asarray(full.segments.vectors))
    for query in ("tighten the guitar string part 35 step 3", "heat the oven bread part 7"):
        if ann_min_rows > 1000:     # exact levels: the very same results
            assert _hits(grown, embedder, query) == _hits(full, embedder, query)
        else:                       # IVF cells kept from 30 videos: the same best video
            assert _hits(grown, embedder, query)[0][0] == _hits(full, embedder, query)[0][0]
        assert np.allclose(grown.segments.bm25.scores(query), full.segments.bm25.scores(query), atol=1e-5)


def _add_directly(rag) -> None:
    from videorag.index import VideoRecord
    from videorag.types import Segment

    segments = [Segment(0.0, 4.0, "grease the bicycle chain with a drop of oil"),
                Segment(4.0, 8.0, "then wipe the extra oil off the chain")]
    chunks = [Segment(0.0, 8.0, " ".join(s.text for s in segments))]
    rag.library.index.add(VideoRecord("chain", "/videos/chain.mp4", 1, 1, 8.0, "subtitles", segments,
                              rag.library.embedder.embed([s.text for s in segments]), chunks,
                              rag.library.embedder.embed([chunks[0].text])))


def _mapped_kb(path) -> int:
    """Resident kB of this process's mappings of `path` (/proc/self/smaps)."""
    total, inside = 0, False
    for line in open("/proc/self/smaps"):
        fields = line.split()
        if "-" in fields[0] and len(fields) >= 5:
            inside = fields[-1] == str(path)
        elif inside and fields[0] == "Rss:":
            total += int(fields[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="reads /proc/self/smaps (Linux)")
def test_released_pages_leave_the_process_and_the_array_reads_the_same(tmp_path):
    from videorag.vectors.mapped import mapped, release

    x = np.arange(2_000_000, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    array = mapped(tmp_path / "x.npy")
    assert float(array.sum(dtype=np.float64)) == float(x.sum(dtype=np.float64))  # every page touched
    assert _mapped_kb(tmp_path / "x.npy") >= 7000
    release(array, np.zeros(3))  # an array in memory: nothing to give back
    assert _mapped_kb(tmp_path / "x.npy") < 100
    assert np.array_equal(array[::1000], x[::1000])
