import numpy as np
import pytest

from videorag.config import SearchConfig
from videorag.embed.hashing import HashingEmbedder
from videorag.errors import ConfigError
from videorag.methods import create_method
from videorag.retrieve import Corpus, Level, Searcher
from videorag.lexical.bm25 import BM25
from videorag.retrieve.fusion import alpha_fuse, minmax, reciprocal_ranks, rrf_fuse
from videorag.analysis import tokenize


def test_tokenize_stems_and_drops_stop_words():
    assert tokenize("The painters were painting walls") == ["painter", "paint", "wall"]


def test_bm25_prefers_rare_matching_terms():
    bm25 = BM25(["the cat sat on the mat", "dogs chase cats", "a mat for yoga", "nothing relevant"])
    scores = bm25.scores("cat mat")
    assert scores.argmax() == 0
    assert scores[3] == 0
    assert np.all(bm25.scores("zebra") == 0)


def test_fusions():
    dense = np.array([0.9, 0.1, 0.5])
    lexical = np.array([0.0, 10.0, 5.0])
    assert minmax(np.array([2.0, 2.0])).tolist() == [0.0, 0.0]
    assert np.allclose(alpha_fuse(dense, lexical, 1.0), [1.0, 0.0, 0.5])
    assert np.allclose(alpha_fuse(dense, lexical, 0.5), [0.5, 0.5, 0.5])
    ranks = reciprocal_ranks(dense, depth=2, k=60)
    assert ranks[0] == pytest.approx(1 / 61) and ranks[2] == pytest.approx(1 / 62) and ranks[1] == 0
    assert rrf_fuse(dense, dense, depth=3)[0] == pytest.approx(1.0)


def _corpus(embedder) -> Corpus:
    segs = [(0, 0.0, 5.0, "boil water in a kettle"), (0, 5.0, 9.0, "steep the tea bag three minutes"),
            (1, 0.0, 4.0, "remove the wheel from the bike"), (1, 4.0, 8.0, "patch the inner tube with glue"),
            (2, 0.0, 6.0, "sand the wall and apply primer")]
    owner = np.array([s[0] for s in segs])
    texts = [s[3] for s in segs]
    level = Level.build(owner, [s[1] for s in segs], [s[2] for s in segs], texts, embedder.embed(texts))
    whole = [" ".join(t for o, t in zip(owner, texts) if o == v) for v in range(3)]
    videos = Level.build(np.arange(3), np.zeros(3), np.full(3, 9.0), whole, embedder.embed(whole))
    return Corpus(["tea", "bike", "wall"], ["/t.mp4", "/b.mp4", "/w.mp4"], level, videos, videos)


@pytest.mark.parametrize("fusion", ["alpha", "rrf"])
def test_search_one_hit_per_video_pointing_at_best_segment(fusion):
    embedder = HashingEmbedder()
    config = SearchConfig(fusion=fusion)
    hits = Searcher(_corpus(embedder), embedder).search("how do I patch a tube", create_method("textvideorag", config),
                                                        config, top_k=3)
    assert [h.video_id for h in hits][0] == "bike"
    assert len({h.video_id for h in hits}) == 3
    assert (hits[0].start, hits[0].end, hits[0].text) == (4.0, 8.0, "patch the inner tube with glue")
    assert hits[0].score >= hits[1].score >= hits[2].score


def test_search_config_is_validated():
    with pytest.raises(ConfigError, match="'mean'"):
        SearchConfig(fusion="mean")
    with pytest.raises(ConfigError, match="1.5"):
        SearchConfig(alpha=1.5)


def test_a_videos_best_item_is_corrected_for_its_number_of_items():
    owner = np.array([0] * 100 + [1])
    level = Level.build(owner, np.arange(101.0), np.arange(101.0) + 1, ["x"] * 101, np.ones((101, 2), np.float32))
    scores = np.r_[np.linspace(0.0, 0.9, 100), 0.8].astype(np.float32)
    assert level.chances[1] == 0 and abs(level.chances[0] - 2.508) < 0.02   # E[max of 100 normals] = 2.508
    assert np.allclose(level.per_video_max(scores, 2), [0.9, 0.8])
    corrected = level.per_video_max(scores, 2, spread=0.1)
    assert corrected[1] == np.float32(0.8) and corrected[0] < 0.8   # the long video's best of 100 counts less


def test_expected_maximum_of_n_normal_draws():
    from videorag.snapshot.corpus import expected_maximum

    rng = np.random.default_rng(0)
    sizes = np.array([1, 2, 5, 30, 200])
    simulated = [rng.standard_normal((20_000, n)).max(axis=1).mean() for n in sizes]
    assert np.allclose(expected_maximum(sizes), simulated, atol=0.03)
    assert expected_maximum(np.zeros(0, np.int64)).shape == (0,)


def test_weak_marks_follow_the_score_shown():
    from videorag.retrieve.searcher import weak_marks

    config, nan = SearchConfig(), float("nan")   # weak below 0.3, or 0.2 under the best relevance
    scores = [0.31, 0.045, 0.014, -0.032]        # the demo's "how do I patch a tube", best first
    assert weak_marks([0.62, 0.25, 0.28, 0.45], scores, config) == [False, True, True, True]  # not F T T F
    assert weak_marks([0.62, 0.55, 0.5, 0.45], scores, config) == [False] * 4
    assert weak_marks([0.62, nan, 0.25, 0.5], scores, config) == [False, False, True, True]
    assert weak_marks([nan, nan], scores[:2], config) == [False, False]
    assert weak_marks([0.5, 0.1], [0.2, 0.2], config) == [True, True]   # a tie reads as one number
