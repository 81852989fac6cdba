"""A sharded search (shards in this process, each behind a thread) gives the hits of the whole
index: same videos, moments, scores and weak marks; a late or failing shard leaves a partial,
named answer within the deadline."""

import math
import random
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from videorag.config import SearchConfig
from videorag.embed import embed_queries
from videorag.embed.hashing import HashingEmbedder
from videorag.errors import ConfigError
from videorag.methods import create_method
from videorag.retrieve import Corpus, Level, Searcher
from videorag.shard.node import ShardNode, ShardQuery
from videorag.shard.router import Router, ShardsDown
from videorag.shard.split import balanced, write

TOPICS = ["kettle tea", "bicycle tube", "garden hose", "guitar string", "oven bread", "laptop fan", "roof tile"]
STEPS = ["clean", "tighten", "measure", "replace", "heat", "rinse", "glue", "test", "sand", "paint"]
QUERIES = [
    "replace the bicycle tube",
    "how do I heat the oven bread",
    "glue a roof tile",
    "tighten guitar string part 7",
    "rinse and test the garden hose",
    "sand and paint the laptop fan",
]


def corpus_of(embedder, videos: int = 40) -> Corpus:
    rng = random.Random(1)
    owner, starts, texts = [], [], []
    for v in range(videos):
        for i in range(rng.randint(3, 20)):  # uneven lengths: shards balance segments, not videos
            owner.append(v)
            starts.append(5.0 * i)
            texts.append(f"{rng.choice(STEPS)} the {rng.choice(TOPICS)} part {v} then {rng.choice(STEPS)} it")
    owner, starts = np.array(owner), np.array(starts)
    segments = Level.build(owner, starts, starts + 4.5, texts, embedder.embed(texts))
    groups = [[t for o, t in zip(owner, texts) if o == v] for v in range(videos)]
    chunk_texts = [" ".join(g[i : i + 4]) for g in groups for i in range(0, len(g), 4)]
    chunk_owner = np.array([v for v, g in enumerate(groups) for _ in range(0, len(g), 4)])
    chunk_starts = np.array([20.0 * i for g in groups for i in range(0, len(g) // 4 + (len(g) % 4 > 0))])
    chunks = Level.build(chunk_owner, chunk_starts, chunk_starts + 20, chunk_texts, embedder.embed(chunk_texts))
    whole = [" ".join(g) for g in groups]
    level = Level.build(np.arange(videos), np.zeros(videos), np.full(videos, 100.0), whole, embedder.embed(whole))
    ids = [f"v{v}" for v in range(videos)]
    return Corpus(ids, [f"/{i}.mp4" for i in ids], segments, chunks, level)


class Local:
    """A shard behind a thread: what a Ray Serve handle gives, without Ray (`delay` seconds late
    or `broken`)."""

    pool = ThreadPoolExecutor(8)

    def __init__(self, node: ShardNode, name: str, delay: float = 0.0, broken: bool = False):
        self.node, self.name, self.delay, self.broken = node, name, delay, broken

    def _call(self, fn, query):
        def run():
            time.sleep(self.delay)
            if self.broken:
                raise RuntimeError("replica died")
            return fn(query)

        return _Waiting(self.pool.submit(run))

    def statistics(self, query):
        return self._call(self.node.statistics, query)

    def found(self, query):
        return self._call(self.node.found, query)


class _Waiting:
    def __init__(self, future):
        self.future = future

    def result(self, timeout):
        return self.future.result(timeout=timeout)


def shards(tmp_path, corpus, n, ann_min_rows=10_000):
    write(corpus, "t1", tmp_path / "shards", n, ann_min_rows, 2_000_000)
    return [ShardNode(str(tmp_path / "shards" / str(k))) for k in range(n)]


def hits(found):
    return [(h.video_id, round(h.start, 3), round(h.end, 3), round(h.score, 4), h.text, h.weak) for h in found]


@pytest.fixture(scope="module")
def embedder():
    return HashingEmbedder()


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("method", ["textvideorag", "bm25", "dense"])
def test_a_sharded_search_gives_the_whole_index_hits(tmp_path, embedder, n, method):
    corpus = corpus_of(embedder)
    config = SearchConfig()
    one = Searcher(corpus, embedder)
    router = Router([Local(node, str(k)) for k, node in enumerate(shards(tmp_path, corpus, n))], _embed(embedder))
    chosen = create_method(method, config)
    for query in QUERIES:
        for moments in (False, True):
            whole = one.search(query, chosen, config, 8, moments)
            sharded = router.search(query, chosen, config, 8, moments)
            assert hits(sharded) == hits(whole), (query, moments)
            assert sharded.missing == ()


def test_shards_keep_the_whole_index_ann_cells_and_find_what_it_finds(tmp_path, embedder):
    corpus = corpus_of(embedder, videos=60)
    config = SearchConfig(ann_min_rows=15, ann_probes=1)  # one of the √n cells: far from exact
    nodes = shards(tmp_path, corpus, 3, ann_min_rows=15)
    assert all(node.searcher.corpus.videos.ann is not None for node in nodes)
    one = shards(tmp_path / "one", corpus, 1, ann_min_rows=15)[0].searcher.corpus  # the whole index, with its ANN
    assert one.videos.ann is not None
    whole = Searcher(one, embedder)
    router = Router([Local(node, str(k)) for k, node in enumerate(nodes)], _embed(embedder))
    chosen = create_method("textvideorag", config)
    exact, differs = Searcher(corpus, embedder), 0
    for query in QUERIES:
        expected = hits(whole.search(query, chosen, config, 10))
        assert hits(router.search(query, chosen, config, 10)) == expected
        differs += expected != hits(exact.search(query, chosen, config, 10))
    assert differs  # the ANN levels were searched approximately, not exactly


def test_one_shard_is_searched_in_one_round(tmp_path, embedder):
    (node,) = shards(tmp_path, corpus_of(embedder), 1)
    client, asked = Local(node, "0"), []
    client.statistics = asked.append  # a second round would have called it first
    config, chosen = SearchConfig(), create_method("textvideorag", SearchConfig())
    whole = Searcher(corpus_of(embedder), embedder).search(QUERIES[0], chosen, config, 8, True)
    assert hits(Router([client], _embed(embedder)).search(QUERIES[0], chosen, config, 8, True)) == hits(whole)
    assert asked == []


def test_a_late_or_broken_shard_gives_a_partial_answer_within_the_deadline(tmp_path, embedder):
    corpus = corpus_of(embedder)
    nodes = shards(tmp_path, corpus, 3)
    config, chosen = SearchConfig(), create_method("textvideorag", SearchConfig())
    clients = [Local(nodes[0], "0"), Local(nodes[1], "1", delay=5.0), Local(nodes[2], "2", broken=True)]
    start = time.perf_counter()
    found = Router(clients, _embed(embedder), deadline=0.5).search(QUERIES[0], chosen, config, 5)
    assert time.perf_counter() - start < 1.0
    assert set(found.missing) == {"1", "2"}
    owned = set(nodes[0].searcher.corpus.video_ids)
    assert found and {h.video_id for h in found} <= owned
    with pytest.raises(ShardsDown):
        Router(clients[1:], _embed(embedder), deadline=0.3).search(QUERIES[0], chosen, config, 5)


@pytest.mark.parametrize("ann_min_rows", [10_000, 15])
def test_shards_locate_moments_only_from_the_collections_kth_best_score(tmp_path, embedder, ann_min_rows):
    corpus, config = corpus_of(embedder, videos=60), SearchConfig(ann_min_rows=ann_min_rows)
    nodes, method, located = shards(tmp_path, corpus, 3, ann_min_rows), create_method("textvideorag", config), 0
    for i, query in enumerate(QUERIES):
        asked = ShardQuery(str(i), query, _embed(embedder)(query), "textvideorag", config, 5, leaders=5)
        parts = [node.statistics(asked) for node in nodes]
        asked.shared = method.merged(parts)
        asked.floor = method.floor(parts, asked.shared, 5)
        found = [f for node in nodes for f in node.found(asked)]
        kth = sorted(f.score for f in found)[-5]  # each shard gave its 5 best: the collection's 5th best
        assert -math.inf < asked.floor <= kth
        assert all(f.moments for f in found if f.score >= kth)
        located += sum(f.moments is not None for f in found)
    assert located < 0.6 * len(nodes) * 5 * len(QUERIES)


def test_a_shard_lost_between_the_rounds_still_gives_a_full_partial_answer(tmp_path, embedder):
    nodes = shards(tmp_path, corpus_of(embedder), 3)
    config, chosen = SearchConfig(), create_method("textvideorag", SearchConfig())
    lost = Local(nodes[1], "1")
    lost.found = lambda query: Local(nodes[1], "1", broken=True).found(query)  # answers round 1 only
    router = Router([Local(nodes[0], "0"), lost, Local(nodes[2], "2")], _embed(embedder))
    for query in QUERIES:
        found = router.search(query, chosen, config, 8)
        assert found.missing == ("1",) and len(found) == 8  # the others asked again: every video located
        assert {h.video_id for h in found} <= set(nodes[0].searcher.corpus.video_ids + nodes[2].searcher.corpus.video_ids)


def test_a_method_that_needs_the_whole_corpus_is_refused(tmp_path, embedder):
    nodes = shards(tmp_path, corpus_of(embedder), 2)
    router = Router([Local(node, str(k)) for k, node in enumerate(nodes)], _embed(embedder))
    with pytest.raises(ConfigError, match="textvideorag"):
        router.search("kettle", create_method("hybrid", SearchConfig()), SearchConfig())


def test_videos_are_spread_by_segments():
    groups = balanced(np.array([10, 1, 1, 1, 9, 2, 5, 5]), 3)
    assert sorted(int(np.array([10, 1, 1, 1, 9, 2, 5, 5])[g].sum()) for g in groups) == [11, 11, 12]
    assert sorted(int(v) for g in groups for v in g) == list(range(8))


def _embed(embedder):
    return lambda text: embed_queries(embedder, [text])[0]


def test_a_judged_search_is_refused_on_a_sharded_index(tmp_path, embedder):
    nodes = shards(tmp_path, corpus_of(embedder), 2)
    router = Router([Local(node, str(k)) for k, node in enumerate(nodes)], _embed(embedder))
    with pytest.raises(ConfigError, match="judge"):
        router.search("kettle", create_method("textvideorag", SearchConfig(), judged=True), SearchConfig())
