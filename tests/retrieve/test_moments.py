"""Moment localisation and `--moments` aggregation on a corpus built by the test (hashing embedder)."""
from __future__ import annotations

import numpy as np

from videorag.config import MomentConfig, SearchConfig
from videorag.embed.hashing import HashingEmbedder
from videorag.methods import create_method
from videorag.retrieve import Candidate, Corpus, Level, Searcher
from videorag.retrieve.moments import merge_overlapping, with_context

# a long recording: an intro that lists every chapter, chapters of several segments, chatter
LECTURE = [
    "welcome to the workshop today we cover sharpening a chisel gluing a joint and finishing oak",
    "before we start thanks to our sponsor and please subscribe",
    "to sharpen the chisel flatten the back on a coarse stone",
    "then hone the bevel at twenty five degrees and strop the edge",
    "the weather has been lovely this week hasn't it",
    "for the joint spread glue thinly on both faces",
    "clamp the joint for one hour and wipe the squeeze out",
    "someone asked about my dog he is fine thanks",
    "finish the oak with two thin coats of hard wax oil",
    "buff the oil after ten minutes with a soft cloth",
]
OTHER = ["bake bread with flour water and salt", "knead the dough ten minutes", "bake at two hundred degrees"]


def corpus(embedder) -> Corpus:
    rows = [(0, 10.0 * i, 10.0 * i + 9, t) for i, t in enumerate(LECTURE)]
    rows += [(1, 8.0 * i, 8.0 * i + 7, t) for i, t in enumerate(OTHER)]
    owner = np.array([r[0] for r in rows])
    texts = [r[3] for r in rows]
    segments = Level.build(owner, [r[1] for r in rows], [r[2] for r in rows], texts, embedder.embed(texts))
    whole = [" ".join(LECTURE), " ".join(OTHER)]
    videos = Level.build(np.arange(2), np.zeros(2), np.array([100.0, 24.0]), whole, embedder.embed(whole))
    return Corpus(["lecture", "bread"], ["/l.mp4", "/b.mp4"], segments, segments, videos)


def search(query: str, moments: bool, top_k: int = 5, **moment_cfg):
    embedder = HashingEmbedder()
    config = SearchConfig(moments=MomentConfig(**moment_cfg))
    return Searcher(corpus(embedder), embedder).search(query, create_method("textvideorag", config), config,
                                                       top_k, moments)


def test_plain_search_cites_the_chapter_not_the_intro():
    hit = search("how long should the glued joint stay clamped", moments=False)[0]
    assert hit.video_id == "lecture" and hit.start >= 50 and hit.end <= 70, hit


def test_the_peak_is_cited_with_its_neighbours():
    alone = search("how long should the glued joint stay clamped", moments=False, pad_segments=0,
                   widen_ratio=1.0)[0]
    padded = search("how long should the glued joint stay clamped", moments=False, pad_segments=1,
                    widen_ratio=1.0)[0]
    assert alone.end - alone.start == 9
    assert (padded.start, padded.end) == (alone.start - 10, alone.end + 10)


def test_moments_several_per_video_best_first_at_most_30s():
    hits = search("sharpen the chisel bevel", moments=True, top_k=4)
    assert sum(h.video_id == "lecture" for h in hits) >= 3
    assert hits[0].video_id == "lecture" and 20 <= hits[0].start and hits[0].end <= 40
    assert all(h.end - h.start <= 30 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    spans = sorted((h.start, h.end) for h in hits if h.video_id == "lecture")
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), "moments of a video must not overlap"


def test_max_seconds_bounds_the_widening():
    hits = search("sharpen the chisel bevel stone strop", moments=True, max_seconds=12, widen_ratio=0.0)
    assert all(h.end - h.start <= 12 for h in hits)


def test_context_uses_only_real_neighbours():
    out = with_context(np.array([1.0, 0.0, 0.0, 0.5]), 1.0)
    assert np.allclose(out, [1.0, 0.5, 0.25, 0.5])


def test_overlapping_moments_merge_and_stay_bounded():
    a = Candidate(0, "moment", 10, 20, 0.9, "text", "a")
    b = Candidate(0, "moment", 15, 25, 0.5, "text", "b")
    c = Candidate(0, "moment", 40, 45, 0.7, "text", "c")
    merged = merge_overlapping([b, c, a], max_seconds=30)
    assert [(m.start, m.end, m.score) for m in merged] == [(10, 25, 0.9), (40, 45, 0.7)]
    far = merge_overlapping([a, Candidate(0, "moment", 19, 50, 0.5, "text", "d")], max_seconds=30)
    assert [(m.start, m.end) for m in far] == [(10, 20)]
