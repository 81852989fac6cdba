"""`VideoRAG.optimize()` (`videorag optimize`): the index's tables are compacted (one fragment
each where writes left several) and the search snapshot is rebuilt, fresh; searching gives the
very same results before and after, here and in another process's view of the index."""
from __future__ import annotations

from tests.reliability.media import tiny_videos
from videorag import Config, VideoRAG
from videorag.config import SearchConfig
from videorag.embed.hashing import HashingEmbedder
from videorag.index import VideoRecord
from videorag import snapshot
from videorag.types import Segment

QUERIES = ("boil water in a kettle", "patch a bicycle tube", "grease the chain with oil")


def _record(n: int, embedder) -> VideoRecord:
    """A video written straight to the index (no compaction after it, unlike an ingest)."""
    segments = [Segment(0.0, 4.0, f"grease the bicycle chain with a drop of oil, take {n}"),
                Segment(4.0, 8.0, f"then wipe the extra oil off the chain, take {n}")]
    chunks = [Segment(0.0, 8.0, " ".join(s.text for s in segments))]
    return VideoRecord(f"chain-{n}", f"/videos/chain-{n}.mp4", 1, 1, 8.0, "subtitles", segments,
                       embedder.embed([s.text for s in segments]), chunks, embedder.embed([chunks[0].text]))


def _results(rag: VideoRAG) -> list:
    return [[h.to_dict() for h in rag.search(q, 5, moments=moments)] for q in QUERIES for moments in (False, True)]


def _alike(found: list, expected: list) -> bool:
    """The same hits, scores within 1e-6 (float32 sums taken in another order differ in the 8th digit)."""
    flat = [(a, b) for run_a, run_b in zip(found, expected) for a, b in zip(run_a, run_b)]
    return [len(r) for r in found] == [len(r) for r in expected] and all(
        {**a, "score": 0} == {**b, "score": 0} and abs(a["score"] - b["score"]) <= 1e-6 for a, b in flat)


def _fragments(rag: VideoRAG, table: str) -> int:
    return rag.library.index._tables[table].stats()["fragment_stats"]["num_fragments"]


def test_optimize_compacts_the_tables_and_rebuilds_a_fresh_snapshot_with_the_same_results(tmp_path):
    embedder = HashingEmbedder()
    rag = VideoRAG(tmp_path / "index", Config(), embedder=embedder)
    assert rag.add(tiny_videos(tmp_path / "library", 3, seconds=6)).count("added") == 3
    for n in range(3):
        rag.library.index.add(_record(n, embedder))
    assert _fragments(rag, "units") > 1 and _fragments(rag, "videos") > 1
    assert rag.library.info()["search"]["snapshot"] == "stale"   # written since the snapshot was made
    before = _results(rag)
    assert all(before) and before[4][0]["path"].startswith("/videos/chain-")   # the directly written ones count
    old = snapshot.manifest(rag.location)

    made = rag.library.optimize()

    assert _fragments(rag, "units") == _fragments(rag, "videos") == 1
    info = rag.library.info()
    assert info["search"]["snapshot"] == "fresh" and info["videos"] == 6
    assert made["token"] == snapshot.manifest(rag.location)["token"] != old["token"]
    assert {name: level["rows"] for name, level in info["search"]["levels"].items()} == \
        {name: level["rows"] for name, level in made["levels"].items()}
    assert _results(rag) == before
    reader = VideoRAG(tmp_path / "index", Config(), embedder=embedder)   # another process's view
    assert _results(reader) == before and reader.library.info()["search"]["snapshot"] == "fresh"


def test_optimize_gives_large_levels_compressed_vectors_that_search_alike(tmp_path):
    embedder = HashingEmbedder()
    rag = VideoRAG(tmp_path / "index", Config(), embedder=embedder)
    rag.add(tiny_videos(tmp_path / "library", 3, seconds=6))
    for n in range(3):
        rag.library.index.add(_record(n, embedder))
    before = _results(rag)
    compressing = Config(search=SearchConfig(ann_min_rows=1, ann_compress_rows=1))
    made = VideoRAG(tmp_path / "index", compressing, embedder=embedder).library.optimize()
    assert {level["ann"]["kind"] for level in made["levels"].values()} == {"ivf-pq"}
    reader = VideoRAG(tmp_path / "index", Config(), embedder=embedder)
    assert reader.library.info()["search"]["levels"]["segment"]["index"].startswith("ivf-pq (")
    assert _alike(_results(reader), before)    # every row within the probes and the short list: exact scores
