"""`rag-adapter` end to end on rendered videos whose slides show other words than the subtitles
say: `search` and `ask` through `VideoRAG`, on an index with OCR captions (CaptionsDB) and on one
with frame embeddings as well (FramesDB, `random-tiny`). Only the captions know the on-screen
words, so finding a step by them proves the caption retriever ran; each chosen frame is cited as
the subtitle cue said around it; `ask` reads the chosen frames (in time order) and the transcript
lines most relevant to the question."""
from __future__ import annotations

import shutil

import pytest

from tests.caption.test_ocr_ingest import render_with_subtitles
from tests.retrieve.test_carve import OMELETTE, OMELETTE_SAID, TEA, TEA_SAID
from videorag import Config, IngestConfig, VideoRAG
from videorag.config import GenerateConfig
from videorag.generate.extractive import ExtractiveGenerator

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract-ocr not installed")]

CHUNK = 4.0
SAID = {"omelette": OMELETTE_SAID, "tea": TEA_SAID}


class Recording(ExtractiveGenerator):
    """The extractive generator, keeping the evidence it was given."""

    evidence: list = []

    def generate(self, question, evidence):
        self.evidence = list(evidence)
        return super().generate(question, evidence)


@pytest.fixture(scope="module")
def videos(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rag-adapter") / "videos"
    folder.mkdir()
    spans = {h.slug: render_with_subtitles(h, SAID[h.slug], folder / f"{h.slug}.mp4") for h in (OMELETTE, TEA)}
    return folder, spans


def _rag(folder, index_dir, embedder, **ingest) -> VideoRAG:
    config = Config(ingest=IngestConfig(chunk_seconds=CHUNK, max_segment_seconds=CHUNK, captioner="ocr", **ingest))
    rag = VideoRAG(index_dir, config, embedder=embedder, generator=Recording())
    assert rag.add([folder]).count("added") == 2
    return rag


@pytest.fixture(scope="module")
def captioned(videos, tmp_path_factory, embedder):
    return _rag(videos[0], tmp_path_factory.mktemp("captioned") / "index", embedder)


@pytest.fixture(scope="module")
def framed(videos, tmp_path_factory, embedder):
    return _rag(videos[0], tmp_path_factory.mktemp("framed") / "index", embedder,
                visual="clip", visual_model="random-tiny")


def name(hit) -> str:
    return hit.path.rsplit("/", 1)[-1]


@pytest.mark.parametrize("query, video, step", [("melt butter in a small pan", "omelette", 1),
                                                ("put a tea bag in a mug", "tea", 1)])
def test_search_finds_the_step_only_the_screen_shows_and_cites_what_was_said_then(captioned, videos, query,
                                                                                   video, step):
    _, spans = videos
    hit = captioned.search(query, method="rag-adapter")[0]
    assert name(hit) == f"{video}.mp4"
    span = spans[video][step]
    assert span.start - 0.5 <= hit.start < hit.end <= span.end + 0.5, (hit, span)
    assert hit.text == SAID[video][step]   # the subtitle cue around the chosen frame, not the slide


def test_moments_are_the_chosen_frames_at_most_k_per_video(captioned):
    captioned.config.search.frames = 2
    try:
        moments = captioned.search("melt butter in a small pan", top_k=10, method="rag-adapter", moments=True)
    finally:
        captioned.config.search.frames = 10
    per_video = {}
    for m in moments:
        per_video.setdefault(name(m), []).append(m)
    assert set(per_video) == {"omelette.mp4", "tea.mp4"} and all(len(v) <= 2 for v in per_video.values())
    assert name(moments[0]) == "omelette.mp4" and moments[0].text == OMELETTE_SAID[1]
    assert all(m.text in OMELETTE_SAID + TEA_SAID for m in moments)   # every moment is a said cue


def test_ask_reads_the_best_videos_lines_and_cites_them(captioned):
    answer = captioned.ask("how do I melt butter in a small pan?", method="rag-adapter")
    evidence = captioned.generator.evidence
    assert len(evidence) == captioned.config.generate.videos == 1
    assert name(evidence[0].hit) == "omelette.mp4" and not evidence[0].frames   # extractive reads no images
    lines = evidence[0].segments
    assert [s.text for s in lines] == list(OMELETTE_SAID)   # at most 10 most relevant lines, time order
    assert answer.answer and {c.path.rsplit("/", 1)[-1] for c in answer.citations} == {"omelette.mp4"}


def test_with_frame_embeddings_search_and_ask_use_the_chosen_frames(framed):
    assert framed.library.index.has_visual and framed.library.index.has_captions
    hits = framed.search("melt butter in a small pan", method="rag-adapter")
    assert {name(h) for h in hits} == {"omelette.mp4", "tea.mp4"}
    assert all(h.text in OMELETTE_SAID + TEA_SAID for h in hits)
    framed.config.search.frames = 2
    framed.config.generate = GenerateConfig(backend="openai", frames_per_video=8)   # a generator that reads images
    try:
        evidence = framed.evidence("how do I melt butter in a small pan?", method="rag-adapter")
        answer = framed.ask("how do I melt butter in a small pan?", method="rag-adapter")
    finally:
        framed.config.search.frames = 10
        framed.config.generate = GenerateConfig()
    assert len(evidence) == 1
    times = [f.t for f in evidence[0].frames]
    assert len(times) == 2 and times == sorted(times) and len(set(times)) == 2   # K frames, time order
    assert all(f.jpeg[:2] == b"\xff\xd8" for f in evidence[0].frames)
    assert [f.t for f in framed.generator.evidence[0].frames] == times and answer.citations


QUERY_PATH = """
import json, sys
from videorag import VideoRAG
from videorag.resources import Resources
found, models = {}, Resources()   # one set of models for both indexes, as one service would hold
for index, methods in zip(sys.argv[1::2], sys.argv[2::2]):
    rag = VideoRAG(index, resources=models)
    for m in methods.split(","):
        found[f"{index} {m}"] = [h.video_id for h in rag.search("crack the eggs", method=m, judge=False)]
    found[f"{index} ask"] = [c.video_id for c in rag.ask("how long should the tea steep", judge=False).citations]
    found[f"{index} overview"] = [c.video_id for c in rag.ask("Summarize all the videos").citations]
print(json.dumps({"found": found, "loaded": sorted(m for m in ("lancedb", "pyarrow") if m in sys.modules)}))
"""


def test_no_query_reads_the_index_tables(captioned, framed):
    """Search with every kind of method (captions, frame vectors, CARVE's chunk views), `ask` and
    an overview (chapters) read the search snapshot alone: a fresh process answering them never imports LanceDB or
    pyarrow (a regression would show in the modules it loaded)."""
    import json
    import subprocess
    import sys

    runs = [(captioned, "textvideorag,best,carve,rag-adapter"),
            (framed, "textvideorag,carve,rag-adapter,videorag-v,videorag-vt")]
    argv = [arg for rag, methods in runs for arg in (str(rag.location.local), methods)]
    out = subprocess.run([sys.executable, "-c", QUERY_PATH, *argv], capture_output=True, text=True, timeout=300,
                         check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["loaded"] == []
    assert len(result["found"]) == 13 and all(result["found"].values()), result["found"]
