"""`videorag eval make-qa`: the reply parser, the support / question checks, the evidence window,
de-duplication and chunk picking, then the whole run over a real tiny index (silent videos with
subtitle sidecars) with generator doubles, and the CLI round trip into `eval index --triplets`."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.reliability.media import tiny_video
from videorag.errors import ConfigError
from videorag.eval import make_qa as mq
from videorag.eval.datasets import load_triplets
from videorag.types import Frame, Segment

BIKE = [(0, 10, "Welcome back to the workshop, today we fix a flat on a road bike."),
        (10, 20, "Let all the air out and unhook the brake so the wheel comes free."),
        (30, 40, "Push two plastic tyre levers under the bead and slide them around the rim."),
        (60, 70, "Pull the inner tube out and pump it up to find the leak."),
        (90, 100, "Listen for the hiss, or hold the tube under water and watch for bubbles."),
        (125, 135, "Rough up the area around the hole with the little square of sandpaper."),
        (140, 150, "Spread a thin layer of rubber cement and wait five minutes until it turns matte."),
        (170, 180, "Press the patch on hard and hold it for a full minute."),
        (200, 210, "Run your fingers inside the tyre to find the thorn that caused the flat."),
        (225, 235, "Refit the tube, seat the bead and inflate to the pressure on the sidewall."),
        (241, 249, "Thanks for watching.")]
BREAD = [(0, 10, "Feed the starter the night before with equal weights of flour and water."),
         (20, 30, "Mix five hundred grams of bread flour with three hundred and fifty grams of warm water."),
         (45, 55, "Leave the dough to rest for an hour, then add the starter and ten grams of salt."),
         (70, 80, "Stretch and fold the dough every thirty minutes for the first two hours."),
         (100, 110, "Bake in a covered cast iron pot at two hundred and fifty degrees for twenty minutes."),
         (121, 129, "Let the loaf cool before slicing.")]
PUNCTURE = [(0, 10, "A glueless patch is quick, but a classic patch kit lasts longer on a touring bike."),
            (20, 30, "Brush on the rubber cement thinly and wait five minutes until it turns matte."),
            (50, 60, "Peel the foil off the patch and press it from the middle outwards."),
            (80, 90, "Dust the repair with chalk so the tube does not stick to the inside of the tyre.")]

SUPPORTED = ("Q: How long should rubber cement dry before the patch goes on a bike tube?\n"
             "A: Five minutes, until it turns matte.")
DUPLICATE = ("Q: How long should the rubber cement dry before a patch goes on the bike tube?\n"
             "A: Five minutes until it turns matte.")
UNSUPPORTED = "Q: Which brand of tyre levers do bike mechanics prefer?\nA: Park Tool levers from the blue box."
UNPARSEABLE = "Sure! Sourdough is a great topic for a question."


def write_srt(path: Path, cues) -> None:
    def stamp(t: float) -> str:
        return f"00:{int(t) // 60:02d}:{int(t) % 60:02d},000"

    path.write_text("\n".join(f"{n}\n{stamp(a)} --> {stamp(b)}\n{text}\n" for n, (a, b, text) in enumerate(cues, 1)))


@pytest.fixture(scope="module")
def tiny_index(tmp_path_factory) -> Path:
    """Three silent videos with subtitles (bike: 3 chunks, the last one too short to ask about;
    bread: 2, the last one short; puncture: 1), indexed with the hashing embedder."""
    from videorag import Config, VideoRAG
    from videorag.embed.hashing import HashingEmbedder

    root = tmp_path_factory.mktemp("make-qa")
    (root / "videos").mkdir()
    for seed, (name, cues, seconds) in enumerate([("patch-a-bike-tube", BIKE, 250),
                                                  ("bake-sourdough-bread", BREAD, 130),
                                                  ("fix-a-puncture", PUNCTURE, 100)]):
        video = tiny_video(root / "videos" / f"{name}.mp4", seconds, seed=seed, srt=False)
        write_srt(video.with_suffix(".srt"), cues)
    report = VideoRAG(root / "index", Config(), embedder=HashingEmbedder()).add([root / "videos"])
    assert not report.partial, report.summary()
    return root / "index"


@pytest.fixture()
def index(tiny_index):
    from videorag.index import VideoIndex

    return VideoIndex.open(tiny_index)


def excerpt(prompt: str) -> str:
    return prompt.rsplit("Excerpt: ", 1)[1]


class FakeGenerator:
    """`complete` answers by what the excerpt is about: supported (bike chunk 1), unsupported
    (bike chunk 0), unparseable (bread), a near-duplicate of the supported one (puncture)."""

    name = "fake"

    def __init__(self):
        self.prompts = []

    def complete(self, prompt: str, max_tokens: int = 8) -> str:
        self.prompts.append(prompt)
        text = excerpt(prompt)
        if "sandpaper" in text:
            return SUPPORTED
        if "tyre levers" in text:
            return UNSUPPORTED
        if "glueless" in text:
            return DUPLICATE
        return UNPARSEABLE


class FakeImageGenerator(FakeGenerator):
    def __init__(self):
        super().__init__()
        self.images = []

    def complete_with_images(self, prompt: str, images: list[bytes], max_tokens: int = 8) -> str:
        self.images.append(images)
        return self.complete(prompt, max_tokens)


# -- parsing -------------------------------------------------------------------------------------
@pytest.mark.parametrize("reply,expected", [
    ("Q: How hot is the oven?\nA: 250 degrees.", ("How hot is the oven?", "250 degrees.")),
    (" How hot is the oven?\nA: 250 degrees.\n\nExcerpt: more", ("How hot is the oven?", "250 degrees.")),
    ("**Question:** How hot is the oven?\n**Answer:** 250 degrees.", ("How hot is the oven?", "250 degrees.")),
    ("Sure, here you go:\nQ: How hot?\nA: Very.\nQ: Again?\nA: No.", ("How hot?", "Very.")),
    ("q. How hot?\n\na: Very.", ("How hot?", "Very.")),
    ("Q: How hot is the oven?", None),             # no answer
    ("A: 250 degrees.\nQ: How hot?", None),        # the answer before any question
    ("Q:\nA: 250 degrees.", None),                 # an empty question
    ("Q: How hot?\nA:", None),                     # an empty answer
    ("", None),
    (UNPARSEABLE, None),
])
def test_parse_reply(reply, expected):
    assert mq.parse_reply(reply) == expected


# -- the checks ----------------------------------------------------------------------------------
CHUNK = " ".join(text for _, _, text in BIKE[5:10])
TOPIC = "patch-a-bike-tube"


@pytest.mark.parametrize("question,answer,reason", [
    ("How long should rubber cement dry before the patch goes on?", "Five minutes, until it turns matte.", None),
    ("What do you rough up the hole with?", "A little square of sandpaper", None),
    ("Which brand of tyre levers do mechanics prefer?", "Park Tool levers from the blue box.", "unsupported"),
    ("Cement?", "Five minutes.", "question length"),
    (" ".join(["word"] * 31) + "?", "Five minutes.", "question length"),
    ("How long should rubber cement dry?", "Five minutes, five minutes, " * 9, "answer length"),
    ("What does the speaker spread on the tube?", "Rubber cement", "refers to the video"),
    ("What is shown in this video about the patch?", "The patch", "refers to the video"),
    ("Should you press the patch on hard?", "Press the patch on hard", "answer in question"),
    ("Should you press the patch on hard?", "Yes.", "unsupported"),
    ("What is it about?", "It is about it.", "answer in question"),           # no content word
    ("How do you patch a bike tube?", "Spread rubber cement and press the patch on.", "off the chunk"),
    ("What is the purpose of the sandpaper?", "To rough up the area around the hole.", "off the chunk"),
    ("How long should the wood glue set before sanding?", "five minutes", "copies the example"),
])
def test_check_item(question, answer, reason):
    assert mq.check_item(question, answer, CHUNK, TOPIC) == reason


def segments(cues) -> list[Segment]:
    return [Segment(float(a), float(b), text) for a, b, text in cues]


def test_window_is_the_segment_holding_the_answer():
    chunk = Segment(120.0, 240.0, CHUNK)
    assert mq.evidence_window(segments(BIKE[5:10]), chunk, "five minutes until it turns matte",
                              "How long does rubber cement dry?") == (140.0, 150.0)


def test_window_spans_neighbours_within_30_seconds_and_prefers_more_answer_words():
    chunk = Segment(120.0, 240.0, CHUNK)
    # sandpaper (125-135) and rubber cement (140-150): both fit in 30 s
    assert mq.evidence_window(segments(BIKE[5:10]), chunk, "sandpaper, then rubber cement",
                              "What goes on first?") == (125.0, 150.0)
    # sandpaper (125-135) and thorn (200-210) are 85 s apart: the window holding both answer words
    # does not exist, so one segment wins; question words break the tie
    assert mq.evidence_window(segments(BIKE[5:10]), chunk, "sandpaper and thorn",
                              "What caused the flat?") == (200.0, 210.0)


def test_window_is_the_chunk_when_no_segment_holds_an_answer_word():
    chunk = Segment(120.0, 240.0, CHUNK)
    assert mq.evidence_window(segments(BIKE[5:10]), chunk, "Park Tool", "Which brand?") == (120.0, 240.0)
    assert mq.evidence_window([], chunk, "sandpaper", "What?") == (120.0, 240.0)


def test_window_stays_inside_the_chunk():
    chunk = Segment(120.0, 240.0, CHUNK)
    long = [Segment(110.0, 150.0, "rough it up with sandpaper")]  # straddles the chunk start
    assert mq.evidence_window(long, chunk, "sandpaper", "What?") == (120.0, 150.0)


def item(question: str, dropped: str | None = None) -> mq.QAItem:
    return mq.QAItem("x", "v", Segment(0, 120, ""), question=question, answer="a", dropped=dropped)


def test_dedupe_drops_near_identical_questions_only():
    items = [item("How long should rubber cement dry before patching a tube?"),
             item("How long should the rubber cement dry before you patch the tube?"),   # same content words
             item("How long should rubber cement dry?"),                                  # Jaccard 4/6
             item("How long do you hold the patch on the tube?"),                         # Jaccard 3/7
             item("What do you rough the hole up with?"),
             item("How long should rubber cement dry before patching a tube?", "unsupported")]
    mq.dedupe(items)
    assert [it.dropped for it in items] == [None, "duplicate", "duplicate", None, None, "unsupported"]


def test_dedupe_ignores_dropped_items_as_references():
    items = [item("What do you rough the hole up with?", "unsupported"), item("What do you rough the hole up with?")]
    mq.dedupe(items)
    assert [it.dropped for it in items] == ["unsupported", None]


# -- picking chunks -------------------------------------------------------------------------------
def chunks(n: int, short: set[int] = frozenset()) -> list[Segment]:
    words = " ".join(f"term{i}" for i in range(20))
    return [Segment(120.0 * k, 120.0 * (k + 1), "short" if k in short else words) for k in range(n)]


def test_pick_chunks_spreads_over_the_video_and_follows_the_seed():
    picks = {tuple(mq.pick_chunks(chunks(9), 3, random.Random(seed))) for seed in range(20)}
    assert all(a in (0, 1, 2) and b in (3, 4, 5) and c in (6, 7, 8) for a, b, c in picks)
    assert len(picks) > 1
    assert mq.pick_chunks(chunks(9), 3, random.Random(5)) == mq.pick_chunks(chunks(9), 3, random.Random(5))


def test_pick_chunks_skips_chunks_with_little_text_and_caps_at_what_there_is():
    assert mq.pick_chunks(chunks(4, short={1, 3}), 3, random.Random(0)) == [0, 2]
    assert mq.pick_chunks(chunks(2, short={0, 1}), 3, random.Random(0)) == []


def test_chunk_frames_are_spread_over_the_chunk_and_capped():
    frames = [Frame(float(t), str(t).encode()) for t in range(300)]
    times = [int(jpeg) for jpeg in mq.chunk_frames(frames, Segment(120.0, 240.0, ""))]
    assert len(times) == mq.MAX_FRAMES and times[0] == 120 and times == sorted(times) and times[-1] < 240
    assert times[-1] - times[0] >= 100                                       # spread, not the first 8
    assert [int(j) for j in mq.chunk_frames(frames[:3], Segment(0.0, 120.0, ""))] == [0, 1, 2]


# -- the whole run over a real tiny index ------------------------------------------------------------
def test_make_qa_over_a_tiny_index(index):
    gen = FakeGenerator()
    qa = mq.make_qa(index, gen, per_video=3, seed=0)
    assert qa.summary() == {"videos": 3, "chunks": 4, "asked": 4, "parsed": 3, "supported": 2, "kept": 1,
                            "dropped": {"unsupported": 1, "unparseable": 1, "duplicate": 1}}
    assert len(gen.prompts) == 4 and all(p.endswith("Q:") for p in gen.prompts)
    (kept,) = qa.kept
    bike = kept.chunk.start == 120.0
    assert (kept.start, kept.end) == ((140.0, 150.0) if bike else (20.0, 30.0))
    assert kept.chunk.start <= kept.start < kept.end <= kept.chunk.end
    reasons = {it.reply: it.dropped for it in qa.dropped}
    assert reasons[UNSUPPORTED] == "unsupported" and reasons[UNPARSEABLE] == "unparseable"
    assert reasons[DUPLICATE if bike else SUPPORTED] == "duplicate"


def test_make_qa_is_deterministic_and_caps_per_video(index):
    first = [it.id for it in mq.make_qa(index, FakeGenerator(), per_video=1, seed=3).items]
    again = [it.id for it in mq.make_qa(index, FakeGenerator(), per_video=1, seed=3).items]
    assert first == again and len(first) == 3            # one chunk per video
    with pytest.raises(ConfigError, match="per-video"):
        mq.make_qa(index, FakeGenerator(), per_video=0)


def test_generators_that_take_images_get_the_chunks_frames(index):
    gen = FakeImageGenerator()
    mq.make_qa(index, gen, per_video=3)
    assert len(gen.images) == 4 and all(0 < len(images) <= mq.MAX_FRAMES for images in gen.images)
    assert all(images[0][:2] == b"\xff\xd8" for images in gen.images)  # JPEG


def test_a_generator_error_is_recorded_and_the_run_goes_on(index):
    from videorag.errors import GenerationError

    class Flaky(FakeGenerator):
        def complete(self, prompt, max_tokens=8):
            if "sandpaper" in excerpt(prompt):
                raise GenerationError("server went away")
            return super().complete(prompt, max_tokens)

    summary = mq.make_qa(index, Flaky()).summary()
    assert summary["chunks"] == 4 and summary["asked"] == 3 and summary["dropped"]["generator error"] == 1
    assert summary["kept"] == 1   # the puncture question no longer has a twin


def test_extractive_is_refused_with_the_alternatives(index):
    from videorag.generate.extractive import ExtractiveGenerator

    with pytest.raises(ConfigError, match="llamacpp.*openai"):
        mq.make_qa(index, ExtractiveGenerator())


def test_openai_complete_with_images_sends_the_images_first(monkeypatch):
    from videorag.config import GenerateConfig
    from videorag.generate import openai

    bodies = []
    monkeypatch.setattr(openai, "chat", lambda url, body, timeout: bodies.append(body) or "Q: a b c?\nA: d")
    gen = openai.OpenAIGenerator(GenerateConfig(backend="openai", model="m"))
    assert gen.complete_with_images("write", [b"\xff\xd8one", b"\xff\xd8two"], 50) == "Q: a b c?\nA: d"
    assert gen.complete("judge", 3) == "Q: a b c?\nA: d"
    content = bodies[0]["messages"][0]["content"]
    assert [part["type"] for part in content] == ["image_url", "image_url", "text"]
    assert content[0]["image_url"]["url"].startswith("data:image/jpeg;base64,") and content[2]["text"] == "write"
    assert bodies[0]["max_tokens"] == 50 and bodies[1]["messages"] == [{"role": "user", "content": "judge"}]


# -- the CLI --------------------------------------------------------------------------------------
def test_cli_writes_triplets_that_eval_index_reads(tiny_index, tmp_path, monkeypatch, capsys):
    from videorag import Config, VideoRAG, generate, pipeline
    from videorag.cli import main
    from videorag.embed.hashing import HashingEmbedder

    monkeypatch.setattr(generate, "create_generator", lambda config, embedder=None: FakeGenerator())
    out, rejects = tmp_path / "qa" / "qa.jsonl", tmp_path / "rejects.jsonl"
    argv = ["eval", "make-qa", "--index", str(tiny_index), "--generator", "fake", "--out", str(out),
            "--rejects", str(rejects), "--json"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["kept"] == 1
    assert "4 chunks asked over 3 videos, 3 replies parsed, 2 kept after the support filter, 1 after de-dup" \
        in captured.err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 1 and set(rows[0]) == {"id", "query", "video_id", "start", "end", "answer"}
    (item,) = load_triplets(out)
    assert item.query == rows[0]["query"] and item.answer == rows[0]["answer"]
    assert item.windows == {rows[0]["video_id"]: [(rows[0]["start"], rows[0]["end"])]}
    assert {json.loads(line)["dropped"] for line in rejects.read_text().splitlines()} == \
        {"unsupported", "unparseable", "duplicate"}

    rag = VideoRAG(tiny_index, Config(), embedder=HashingEmbedder())
    monkeypatch.setattr(pipeline, "VideoRAG", lambda *args, **kwargs: rag)
    assert main(["eval", "index", "--index", str(tiny_index), "--golden", str(out), "--triplets", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["n"] == 1 and result["n_windows"] == 1 and "window_hit@1" in result


def test_cli_refuses_extractive_and_a_doubled_stdout(tiny_index, tmp_path, capsys):
    from videorag.cli import main

    base = ["eval", "make-qa", "--index", str(tiny_index), "--out"]
    assert main(base + [str(tmp_path / "q.jsonl"), "--generator", "extractive"]) != 0
    assert "llamacpp" in capsys.readouterr().err and not (tmp_path / "q.jsonl").exists()
    assert main(base + ["-", "--generator", "llamacpp", "--json"]) != 0
    assert "stdout" in capsys.readouterr().err


@pytest.mark.slow
def test_real_llamacpp_on_the_tiny_index(index):
    """The default local model (Gemma 3 270M) over the tiny index: the counts hang together."""
    pytest.importorskip("xllamacpp")
    from videorag.generate.llamacpp import LlamaCppGenerator

    qa = mq.make_qa(index, LlamaCppGenerator(), per_video=3)
    s = qa.summary()
    print("real llamacpp on the tiny index:", s)
    assert s["chunks"] == s["asked"] == 4 and s["kept"] <= s["supported"] <= s["parsed"] <= s["asked"]
    for it in qa.kept:
        assert it.chunk.start <= it.start < it.end <= it.chunk.end and it.end - it.start <= 120
