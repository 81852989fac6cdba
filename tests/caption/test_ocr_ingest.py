"""OCR captions end to end on rendered slides: Tesseract reads the on-screen words, `videorag
index --captions ocr` stores one embedded caption per sampled frame, another captioner is
refused, removing a video removes its captions, and a captioned index stays captioned."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from videorag import Config, IngestConfig, VideoRAG
from videorag.caption.ocr import OCRCaptioner
from videorag.cli import EXIT_ERROR, EXIT_OK, main
from videorag.demo.render import HowTo, render
from videorag.errors import IndexError_
from videorag.index import VideoIndex
from videorag.ingest.decode import sample_frames

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract-ocr not installed")]

OMELETTE = HowTo("omelette", "Omelette basics", (
    "Whisk three eggs with a fork.", "Melt butter in a small pan.", "Fold the omelette in half."))
SAID = ("Crack them into a bowl first.", "Keep the heat low.", "Slide it onto a warm plate.")
SCREEN_WORDS = ({"whisk", "eggs", "fork"}, {"melt", "butter", "pan"}, {"fold", "omelette", "half"})


def _clock(t: float) -> str:
    return f"00:{int(t // 60):02d}:{t % 60:06.3f}".replace(".", ",")


def render_with_subtitles(howto: HowTo, said: tuple[str, ...], path):
    """Slides without sound, and subtitles that say other words than the slides show."""
    spans = render(howto, path, audio=False)
    cues = [f"{i}\n{_clock(s.start)} --> {_clock(s.end)}\n{text}\n" for i, (s, text) in enumerate(zip(spans, said), 1)]
    path.with_suffix(".srt").write_text("\n".join(cues))
    return spans


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    path = tmp_path_factory.mktemp("captions") / "videos" / "omelette.mp4"
    path.parent.mkdir()
    return path, render_with_subtitles(OMELETTE, SAID, path)


@pytest.fixture(scope="module")
def captioned(video, tmp_path_factory):
    index_dir = tmp_path_factory.mktemp("captioned") / "index"
    assert main(["index", str(video[0].parent), "--index", str(index_dir), "--captions", "ocr"]) == EXIT_OK
    return index_dir


def words(text: str) -> set[str]:
    return {w.strip(".,|:").lower() for w in text.split()}


def span_of(spans, t: float) -> int:
    return next(i for i, s in enumerate(spans) if s.start <= t < s.end)


def test_ocr_reads_the_on_screen_words_once_per_slide(video):
    path, spans = video
    frames = sample_frames(path)
    captioner, described = OCRCaptioner(), []
    describe = captioner.describe
    captioner.describe = lambda fs: described.extend(fs) or describe(fs)
    captions = captioner.caption(frames, [])
    assert len(described) == len(spans)                      # one OCR per distinct slide
    assert [c.t for c in captions] == [f.t for f in frames]
    for caption in captions:
        assert caption.text.startswith("on screen: ") and "said:" not in caption.text
        assert SCREEN_WORDS[span_of(spans, caption.t)] <= words(caption.text), caption


def test_index_stores_one_embedded_caption_per_frame(captioned, video, embedder):
    path, spans = video
    index = VideoIndex.open(captioned)
    assert index.has_captions and index.meta["captioner"] == {"name": "ocr", "model": "tesseract:eng"}
    (video_id,) = index.video_ids()
    table = index.captions()
    assert table["t"].to_pylist() == [f.t for f in index.frames(video_id)]
    for t, text in zip(table["t"].to_pylist(), table["text"].to_pylist()):
        step = span_of(spans, t)
        assert SCREEN_WORDS[step] <= words(text.split(" | said: ")[0]), text
        assert SAID[step] in text.split(" | said: ")[1], text    # the subtitles around the frame
    vectors = np.asarray(table["vector"].to_pylist(), np.float32)
    assert vectors.shape == (table.num_rows, embedder.dim)
    assert np.allclose(vectors, embedder.embed(table["text"].to_pylist()), atol=1e-5)


def test_info_counts_captions(captioned, capsys):
    assert main(["info", "--json", "--index", str(captioned)]) == EXIT_OK
    info = json.loads(capsys.readouterr().out)
    assert info["captions"] == info["frames"] > 0
    assert info["models"]["captioner"] == {"name": "ocr", "model": "tesseract:eng"}


def test_another_captioner_is_refused(captioned, video, capsys, embedder):
    before = VideoIndex.open(captioned).captions().num_rows
    args = ["index", str(video[0].parent), "--index", str(captioned), "--captions", "openai",
            "--caption-model", "some-vlm"]
    assert main(args) == EXIT_ERROR
    err = capsys.readouterr().err
    assert "captioner 'ocr'" in err and "--captions ocr" in err
    rag = VideoRAG(captioned, Config(ingest=IngestConfig(captioner="ocr", caption_model="deu")), embedder=embedder)
    with pytest.raises(IndexError_, match="tesseract:eng"):
        rag.add([video[0]])
    assert VideoIndex.open(captioned).captions().num_rows == before


def test_removing_a_video_removes_its_captions(captioned, tmp_path):
    index_dir = shutil.copytree(captioned, tmp_path / "index")
    (video_id,) = VideoIndex.open(index_dir).video_ids()
    assert main(["remove", video_id, "--index", str(index_dir)]) == EXIT_OK
    index = VideoIndex.open(index_dir)
    assert index.captions().num_rows == 0 and index.captions(video_id).num_rows == 0
    assert index.stats()["captions"] == 0                   # the rows are gone, not just hidden


def test_a_captioned_index_stays_captioned(captioned, tmp_path, embedder):
    index_dir = shutil.copytree(captioned, tmp_path / "index")
    second = tmp_path / "more" / "pancake.mp4"
    second.parent.mkdir()
    render_with_subtitles(HowTo("pancake", "Pancakes", ("Sift the flour twice.",)), ("Use a sieve.",), second)
    report = VideoRAG(index_dir, Config(), embedder=embedder).add([second])   # no captioner configured
    assert report.count("added") == 1, report.files
    index = VideoIndex.open(index_dir)
    new_id = report.files[0].video_id
    texts = index.captions(new_id)["text"].to_pylist()
    assert texts and all({"sift", "flour"} <= words(t) and "Use a sieve." in t for t in texts)
    assert len(index.video_ids()) == 2
