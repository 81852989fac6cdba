"""Chapters: a video's topics found from its transcript at ingest, with titles of its own words
(`videorag.chapters`); stored in the index, listed by the CLI, and added by `optimize` to an index
made before them."""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from tests.reliability.media import tiny_video
from videorag import Config, VideoRAG
from videorag.chapters import chapters_of
from videorag.cli import main
from videorag.types import Segment

TOPICS = {
    "bread": (
        "Today we bake a simple loaf of bread.",
        "Mix five hundred grams of flour with salt and yeast.",
        "Add warm water and knead the dough for ten minutes.",
        "The dough should feel smooth and spring back when you press it.",
        "Let the dough rise in a warm place until it doubles.",
        "Knock the air out of the dough and shape it into a loaf.",
        "Put the loaf in a tin and let it rise a second time.",
        "Bake the bread in a hot oven for thirty minutes.",
        "The loaf is done when it sounds hollow underneath.",
        "Let the bread cool before you slice it.",
    ),
    "tire": (
        "Now let us fix a flat bicycle tire.",
        "Take the wheel off the bike and let out the remaining air.",
        "Use two tire levers to pry the tire off the rim.",
        "Pull the inner tube out and pump it up to find the hole.",
        "Listen for hissing or hold the tube under water to see bubbles.",
        "Roughen the rubber around the puncture with sandpaper.",
        "Spread a thin layer of glue and wait until it is dry.",
        "Press the patch onto the tube firmly for a minute.",
        "Put the tube back inside the tire and pump it to pressure.",
        "Spin the wheel to check that the tire sits evenly on the rim.",
    ),
    "garden": (
        "Finally, some advice on watering your garden plants.",
        "Water early in the morning so the leaves dry during the day.",
        "Soak the soil deeply rather than sprinkling a little every day.",
        "Deep watering makes the roots grow down into the ground.",
        "Push a finger into the soil to feel whether it is still moist.",
        "Plants in pots dry out faster than plants in the ground.",
        "A layer of mulch keeps the soil from drying in the sun.",
        "Collect rain water in a barrel for the dry summer weeks.",
        "Yellow leaves often mean the plants get too much water.",
        "Wilting in the evening sun is normal and recovers overnight.",
    ),
}
SECONDS = 7.0  # each sentence is said in this long


def spoken(lines) -> list[Segment]:
    return [Segment(i * SECONDS, (i + 1) * SECONDS - 0.5, line) for i, line in enumerate(lines)]


def embed(embedder):
    return lambda texts: embedder.embed(texts)


def test_topics_become_chapters_that_start_where_they_start_titled_with_their_words(embedder):
    segments = spoken([line for lines in TOPICS.values() for line in lines])
    vectors = embedder.embed([s.text for s in segments])
    found = chapters_of(segments, vectors, segments[-1].end + 0.5, embed(embedder))
    assert [round(c.start) for c in found] == [0, 70, 140]  # each topic's first sentence
    assert found[-1].end == pytest.approx(210.0) and all(a.end == b.start for a, b in zip(found, found[1:]))
    for chapter, (topic, lines) in zip(found, TOPICS.items()):
        words = set(chapter.title.lower().split())
        assert words and words <= set(" ".join(lines).lower().replace(".", "").replace(",", "").split()), chapter
    assert {"bread", "loaf", "dough"} & set(found[0].title.lower().split()), found[0]
    assert {"tire", "tube", "patch", "wheel"} & set(found[1].title.lower().split()), found[1]
    assert {"water", "watering", "soil", "plants", "garden"} & set(found[2].title.lower().split()), found[2]


def test_a_video_about_one_thing_is_one_chapter(embedder):
    lines = [*TOPICS["bread"], *TOPICS["bread"][::-1], *TOPICS["bread"][1::2]]  # 3.5 minutes of bread
    segments = spoken(lines)
    found = chapters_of(segments, embedder.embed(lines), segments[-1].end, embed(embedder))
    assert len(found) == 1 and found[0].start == 0 and found[0].end == segments[-1].end
    assert {"bread", "loaf", "dough"} & set(found[0].title.lower().split()), found[0]


def test_a_short_clip_is_one_titled_chapter_and_silence_one_untitled(embedder):
    segments = [Segment(0.5, 4.0, "Boil fresh water in a kettle."), Segment(4.0, 9.5, "Pour it over the tea bag.")]
    found = chapters_of(segments, embedder.embed([s.text for s in segments]), 10.0, embed(embedder))
    assert len(found) == 1 and (found[0].start, found[0].end) == (0.0, 10.0) and found[0].title
    silent = chapters_of([], np.zeros((0, embedder.dim), np.float32), 12.0, embed(embedder))
    assert [(c.start, c.end, c.title) for c in silent] == [(0.0, 12.0, "")]


@pytest.fixture(scope="module")
def lecture(tmp_path_factory):
    """A 3.5-minute video whose subtitles talk about bread, then a tire, then watering."""
    folder = tmp_path_factory.mktemp("lecture")
    path = tiny_video(folder / "lecture.mp4", seconds=211, srt=False)
    cues = [f"{i + 1}\n{_srt(s.start)} --> {_srt(s.end)}\n{s.text}\n"
            for i, s in enumerate(spoken([line for lines in TOPICS.values() for line in lines]))]
    path.with_suffix(".srt").write_text("\n".join(cues))
    return path


def _srt(t: float) -> str:
    return f"00:{int(t) // 60:02d}:{int(t) % 60:02d},{int(round(t % 1 * 1000)):03d}"


def test_ingest_stores_chapters_the_cli_lists_them_and_optimize_gives_an_older_index_its(
    lecture, tmp_path, embedder, capsys
):
    def videorag_cli(*args: str) -> subprocess.CompletedProcess:
        code = main([*args])
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out, err)

    index = tmp_path / "index"
    VideoRAG(index, Config(), embedder=embedder).add([lecture])
    listed = videorag_cli("chapters", str(lecture), "--index", str(index), "--json")
    assert listed.returncode == 0, listed.stderr
    found = json.loads(listed.stdout)
    assert [round(c["start"]) for c in found["chapters"]] == [0, 70, 140] and found["path"] == str(lecture)
    shown = videorag_cli("chapters", found["video_id"], "--index", str(index))
    assert shown.stdout.splitlines()[1].split()[0] == "0:00–1:10", shown.stdout
    by_name = videorag_cli("chapters", "lecture.mp4", "--index", str(index), "--json")   # its file name alone
    assert json.loads(by_name.stdout)["video_id"] == found["video_id"], by_name.stderr

    meta = json.loads((index / "videorag.json").read_text())  # as an index made before chapters
    (index / "videorag.json").write_text(json.dumps({**meta, "format": 3}))
    shutil.rmtree(index / "chapters.lance")
    assert "chapters for 0 of 1 videos (videorag optimize adds them)" in videorag_cli("info", "--index", str(index)).stdout
    refused = videorag_cli("chapters", str(lecture), "--index", str(index))
    assert refused.returncode != 0 and "indexed before videorag found chapters" in refused.stderr
    assert f"videorag optimize --index {index}" in refused.stderr
    optimized = videorag_cli("optimize", "--index", str(index))
    assert "chapters found for 1 videos" in optimized.stderr, optimized.stderr
    assert "chapters for all 1 videos" in videorag_cli("info", "--index", str(index)).stdout
    again = json.loads(videorag_cli("chapters", str(lecture), "--index", str(index), "--json").stdout)
    assert again["chapters"] == found["chapters"] and json.loads((index / "videorag.json").read_text())["format"] == 4
    unknown = videorag_cli("chapters", "no-such-video", "--index", str(index))
    assert unknown.returncode != 0 and "no indexed video is 'no-such-video'" in unknown.stderr


# -- overviews: questions about a whole video or the collection, answered from the chapters ------
@pytest.mark.parametrize("question, kind", [
    ("Give me an overview of the cooking class", "video"),
    ("summarize the bike night video", "video"),
    ("What topics does the lecture cover?", "video"),
    ("What is the garden stream about?", "video"),
    ("Can you recap the photography workshop for me", "video"),
    ("Summarize all the videos", "collection"),
    ("What topics do the videos cover?", "collection"),
    ("Which videos are about sourdough?", "which"),
    ("how long should the glue dry?", None),
    ("What temperature is the oven?", None),
    ("What do I need to patch a tire?", None),
    ("What steps are needed to patch a tire?", None),
    ("What parts do I need for the dripping faucet?", None),
    ("What is the tip about letting the dough rest?", None),
    ("What does the recipe say about salt?", None),
])
def test_overview_questions_are_told_from_questions_about_a_moment(question, kind):
    from videorag.generate.overview import overview_of

    found = overview_of(question)
    assert (found.kind if found else None) == kind, found


@pytest.fixture(scope="module")
def library(lecture, tmp_path_factory, embedder):
    """The lecture beside a short subtitled clip about a kettle."""
    folder = lecture.parent
    tiny_video(folder / "kettle.mp4", seconds=8, seed=0)
    rag = VideoRAG(tmp_path_factory.mktemp("overview") / "index", Config(), embedder=embedder)
    assert rag.add([lecture, folder / "kettle.mp4"]).count("added") == 2
    return rag


def test_an_overview_of_a_video_cites_each_of_its_chapters_in_order(library, lecture):
    answer = library.ask("Give me an overview of the lecture")
    assert not answer.abstained and answer.generator == "overview"
    assert [(c.path, round(c.start), round(c.end)) for c in answer.citations] == [
        (str(lecture), 0, 70), (str(lecture), 70, 140), (str(lecture), 140, 211)]
    assert [c.citations for c in answer.claims] == [[0], [1], [2]]
    assert answer.answer.splitlines()[0] == "lecture.mp4 (3:31) in 3 parts:"
    bread, tire, water = answer.answer.splitlines()[1:]
    assert bread.startswith("1. ") and bread.endswith("[1].") and "bread" in bread.lower()
    assert "tire" in tire.lower() or "tube" in tire.lower()
    streamed = list(library.ask_stream("Give me an overview of the lecture"))
    assert streamed[-1].to_dict() == answer.to_dict() and "".join(streamed[:-1]) == answer.answer


def test_the_collection_and_which_videos_are_overviews_and_an_unknown_video_is_abstained(library, lecture):
    whole = library.ask("Summarize all the videos")
    assert whole.answer.startswith("The collection holds 2 videos:") and len(whole.citations) == 2
    assert {c.path for c in whole.citations} == {str(lecture), str(lecture.parent / "kettle.mp4")}
    clip = next(line for line in whole.answer.splitlines() if "kettle.mp4: " in line)   # one chapter: what it says
    assert len(clip.split(": ", 1)[1].split()) > 3, clip   # more than a title (three words at most)
    which = library.ask("Which videos are about fixing a flat bicycle tire?")
    assert which.citations and which.citations[0].path == str(lecture) and round(which.citations[0].start) == 70
    short = library.ask("Give me an overview of the kettle clip")   # one chapter: gone through by its sentences
    assert re.match(r"kettle\.mp4 \(0:08\) in [1-8] steps:", short.answer), short.answer
    assert all(c.path.endswith("kettle.mp4") and c.end - c.start < 8 for c in short.citations)
    assert len(short.claims) == len(short.citations) == len(short.answer.splitlines()) - 1
    unknown = library.ask("Give me an overview of the chess tournament")
    assert unknown.abstained and unknown.citations == [] and unknown.answer == "The videos do not cover this."


def test_an_overview_keeps_a_translation_with_the_sentence_it_translates():
    from videorag.generate.overview import sentences

    said = [Segment(0, 3, "Pela las patatas. (in English: Peel the potatoes.)"), Segment(3, 6, "Bate los huevos.")]
    assert [s.text for s in sentences(said)] == [
        "Pela las patatas. (in English: Peel the potatoes.)", "Bate los huevos."]
