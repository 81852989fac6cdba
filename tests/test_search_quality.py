"""Paraphrased questions find the right video and a segment overlapping the step that answers."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

# (question, video slug, index of the step that answers it) — worded unlike the narration
QUESTIONS = [
    ("When should I give the plant a drink before moving it?", "repot-a-houseplant", 1),
    ("How much bigger should the new container be?", "repot-a-houseplant", 2),
    ("What do I do with rotten roots?", "repot-a-houseplant", 4),
    ("How do I get the tyre off the wheel rim?", "fix-a-flat-bike-tire", 2),
    ("How can I locate the puncture?", "fix-a-flat-bike-tire", 3),
    ("How long until the adhesive is ready for the patch?", "fix-a-flat-bike-tire", 5),
    ("What temperature for the kettle water?", "brew-pour-over-coffee", 1),
    ("How coarse should the coffee be ground?", "brew-pour-over-coffee", 2),
    ("Why wet the filter paper first?", "brew-pour-over-coffee", 3),
    ("How do I protect the carpet from drips?", "paint-a-wall", 1),
    ("What should I do about nail holes before painting?", "paint-a-wall", 2),
    ("How long between coats?", "paint-a-wall", 6),
    ("Can I wash my skillet with detergent?", "clean-a-cast-iron-pan", 2),
    ("How do I stop the pan from rusting?", "clean-a-cast-iron-pan", 3),
    ("How should the pan be oiled after cleaning?", "clean-a-cast-iron-pan", 4),
]


def test_paraphrased_questions_hit_video_and_step(demo_rag, sample_dir):
    _, spans = sample_dir
    right_video = right_step = 0
    for question, slug, step in QUESTIONS:
        hit = demo_rag.search(question, top_k=3)[0]
        if slug in hit.path:
            right_video += 1
            span = spans[slug][step]
            right_step += hit.start < span.end and hit.end > span.start
        assert hit.end - hit.start <= 15.0
    assert right_video / len(QUESTIONS) >= 0.9, (right_video, right_step)
    assert right_step / len(QUESTIONS) >= 0.8, (right_video, right_step)


def test_results_are_distinct_videos_best_first(demo_rag):
    hits = demo_rag.search("paint", top_k=10)
    assert len(hits) == 5 and len({h.video_id for h in hits}) == 5
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert "paint-a-wall" in hits[0].path
