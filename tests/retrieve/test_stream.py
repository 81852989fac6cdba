"""A snapshot's levels written from the index a block at a time (`snapshot.stream`) hold what the
in-memory build holds, and search the same."""
import random
from pathlib import Path

import numpy as np
import pytest

from videorag.config import SearchConfig
from videorag.embed.hashing import HashingEmbedder
from videorag.index import VideoIndex, VideoRecord
from videorag.ingest.chunking import window_chunks
from videorag.methods import create_method
from videorag.retrieve import Searcher
from videorag.lexical import bm25
from videorag import snapshot
from videorag.snapshot import stream
from videorag.snapshot.build import corpus_of
from videorag.types import Segment

TOPICS = ["kettle tea", "bicycle tube", "garden hose", "guitar string", "oven bread", "laptop fan"]
STEPS = ["clean", "tighten", "measure", "replace", "heat", "rinse", "glue", "test"]


def _record(embedder, v: int, rng: random.Random) -> VideoRecord:
    segments = [Segment(5.0 * i, 5.0 * i + 4.5, f"{rng.choice(STEPS)} the {TOPICS[v % 6]} part {v} step {i} "
                        f"{rng.choice(STEPS)} again") for i in range(12)]
    segments.reverse()   # written out of time order: the level sorts them
    chunks = window_chunks(sorted(segments, key=lambda s: s.start), 20.0, 60.0)
    return VideoRecord(f"v{v}", f"/{v}.mp4", 0, 0, 60.0, "asr", segments, embedder.embed([s.text for s in segments]),
                       chunks, embedder.embed([c.text for c in chunks]))


@pytest.fixture
def index(tmp_path):
    embedder, rng = HashingEmbedder(), random.Random(0)
    index = VideoIndex.open_or_create(tmp_path / "index", embedder.model_name, embedder.dim)
    order = list(range(40))
    random.Random(1).shuffle(order)
    for batch in (order[:25], order[25:]):   # two writes, videos in no particular order
        index.add_many([_record(embedder, v, rng) for v in batch])
    return index


def test_a_streamed_level_holds_what_the_in_memory_build_holds(index, tmp_path, monkeypatch):
    monkeypatch.setattr(stream, "VECTOR_BATCH", 50)   # many batches
    monkeypatch.setattr(bm25, "BLOCK", 7)             # many blocks of term counts
    memory = corpus_of(index)
    folder = tmp_path / "out"
    folder.mkdir()
    streamed = corpus_of(index, into=folder)
    for name in ("segments", "chunks"):
        a, b = getattr(memory, name), getattr(streamed, name)
        assert b.folder == folder and isinstance(b.vectors.base, np.memmap)   # mapped from the folder
        for key in ("owner", "starts", "ends", "block_starts", "block_owner"):
            assert np.array_equal(np.asarray(getattr(a, key)), np.asarray(getattr(b, key))), (name, key)
        assert np.array_equal(np.asarray(a.vectors), np.asarray(b.vectors))
        assert list(a.texts) == list(b.texts) and len(b.texts) == len(a) > 0
        assert b.bm25.vocab == a.bm25.vocab
        for key, value in a.bm25.arrays().items():
            assert np.array_equal(np.asarray(value), np.asarray(b.bm25.arrays()[key])), (name, key)


@pytest.mark.parametrize("min_rows, compress_rows", [(10_000, 10_000), (200, 10_000), (200, 400)])
def test_a_streamed_snapshot_searches_like_one_saved_from_memory(index, tmp_path, min_rows, compress_rows):
    embedder = HashingEmbedder()
    made = snapshot.save(lambda folder: corpus_of(index, into=folder), index.location, "t1", min_rows, compress_rows)
    kind = None if min_rows > 480 else "ivf-flat" if compress_rows > 480 else "ivf-pq"
    assert (made["levels"]["segment"]["ann"] or {}).get("kind") == kind   # 480 segments
    streamed = snapshot.load(index.location, "t1")
    other = tmp_path / "memory"
    snapshot.save(corpus_of(index), other, "t2", min_rows, compress_rows)
    memory = snapshot.load(other, "t2")
    files = [sorted(p.name for p in Path(found["folder"]).iterdir()) for found in (snapshot.manifest(index.location), snapshot.manifest(other))]
    assert files[0] == files[1]   # the same arrays, no leftover copy of the vectors
    config = SearchConfig()
    for method in ("textvideorag", "bm25"):
        for query in ("tighten the guitar string part 21 step 3", "heat the oven bread"):
            hits = [[(h.video_id, h.start, round(h.score, 5)) for h in Searcher(c, embedder).search(
                query, create_method(method, config), config, top_k=5, moments=True)] for c in (streamed, memory)]
            assert hits[0] == hits[1] and hits[0]


def test_an_npy_file_written_in_runs_reads_back_whole(tmp_path):
    x = np.random.default_rng(0).normal(size=(9, 4)).astype(np.float32)
    out = stream.NpyFile(tmp_path / "x.npy", x.shape, np.float32)
    out.scatter(np.array([4, 5, 6, 7, 8, 0, 1, 2, 3]), x[[4, 5, 6, 7, 8, 0, 1, 2, 3]])
    out.close()
    assert np.array_equal(np.load(tmp_path / "x.npy"), x)


@pytest.mark.parametrize("compress_rows, extended", [(10_000, True), (400, False)])
def test_a_snapshot_with_vectors_on_disk_is_rebuilt_not_extended_in_memory(index, compress_rows, extended):
    from videorag import Config, VideoRAG

    config = Config(show_progress=False, search=SearchConfig(ann_min_rows=200, ann_compress_rows=compress_rows))
    rag = VideoRAG(index.location.local, config, embedder=HashingEmbedder())
    rag.library.save_snapshot()
    base = snapshot.manifest(index.location)
    index.add_many([_record(HashingEmbedder(), 40, random.Random(2))])   # one more video
    assert (rag.library.extend_snapshot(base) is not None) == extended    # IVF-PQ (480 ≥ 400): not in memory
    hits = rag.search("the oven bread part 40 step 2")
    assert snapshot.fresh(index.location) and hits[0].video_id == "v40"
