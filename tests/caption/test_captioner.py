"""The captioner contract with fakes: frame deduplication, transcript joining, OCR text
cleaning, the registry, the openai backend against a local fake server. No models, no media."""
from __future__ import annotations

import base64
import io
import json
import shutil
import threading
from http.server import HTTPServer

import pytest
from PIL import Image, ImageDraw, ImageFont

from tests.http_doubles import JSONHandler
from videorag.caption import caption_frames, create_captioner, join, said_around
from videorag.caption.dedup import distinct
from videorag.caption.ocr import OCRCaptioner, clean
from videorag.errors import MissingDependencyError, UnknownBackendError
from videorag.types import Caption, Frame, Segment


def slide(color: tuple, lines: list[str], quality: int = 80) -> bytes:
    image = Image.new("RGB", (384, 216), color)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((16, 20 + 26 * i), line, fill=(250, 250, 250), font=ImageFont.load_default(size=16))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=quality)
    return buffer.getvalue()


TEAL, ORANGE = (42, 157, 143), (231, 111, 81)
SLIDES = [slide(TEAL, ["Boil the water"]), slide(TEAL, ["Boil the water"], quality=70),  # noise only
          slide(TEAL, ["Boil the water"]),                                                 # same bytes
          slide(TEAL, ["Boil the water", "then add the tea"]),                             # a new line
          slide(ORANGE, ["Steep three minutes"]), slide(ORANGE, ["Steep three minutes"], quality=90)]
FRAMES = [Frame(float(t), jpeg) for t, jpeg in enumerate(SLIDES)]
SEGMENTS = [Segment(0.0, 2.5, "First boil some water."), Segment(2.5, 3.5, "Add a tea bag."),
            Segment(9.0, 12.0, "Much later.")]


def test_dedup_keeps_changes_and_drops_compression_noise():
    assert distinct(FRAMES) == [0, 0, 0, 3, 4, 4]
    assert distinct([]) == []
    assert distinct(FRAMES[:1]) == [0]


def test_only_distinct_frames_are_described_and_reused():
    calls = []

    def describe(frames):
        calls.append([f.t for f in frames])
        return [f"text of {f.t:g}" for f in frames]

    captions = caption_frames(FRAMES, [], describe, "on screen")
    assert calls == [[0.0, 3.0, 4.0]]
    assert [c.text for c in captions] == ["on screen: text of 0"] * 3 + ["on screen: text of 3"] + \
        ["on screen: text of 4"] * 2


def test_captions_join_what_is_said_around_each_frame():
    captions = caption_frames(FRAMES, SEGMENTS, lambda fs: ["" if f.t == 4.0 else "Boil" for f in fs],
                              "on screen", said_seconds=1.0)
    by_t = {c.t: c.text for c in captions}
    assert by_t[0.0] == "on screen: Boil | said: First boil some water."
    assert by_t[3.0] == "on screen: Boil | said: First boil some water. Add a tea bag."
    assert by_t[4.0] == "said: Add a tea bag."          # nothing on screen: only the transcript
    assert 5.0 not in by_t                              # nothing at all: no caption
    assert all(isinstance(c, Caption) for c in captions)


def test_said_around_and_join():
    assert said_around(SEGMENTS, 10.0, 0.5) == "Much later."
    assert said_around(SEGMENTS, 6.5, 2.0) == ""
    assert said_around(SEGMENTS, 2.5, 0.0) == "First boil some water. Add a tea bag."
    assert join("seen", "a kettle", "") == "seen: a kettle"
    assert join("seen", "", "") == ""


def test_clean_drops_junk_lines():
    raw = "How to make tea\n\n|| — ~ .\nBoil  fresh water\n12:45 07/11\nx\n*y* ©\n"
    assert clean(raw) == "How to make tea Boil fresh water"


def test_unknown_captioner_lists_valid_ones():
    with pytest.raises(UnknownBackendError, match="ocr, openai"):
        create_captioner("cogvlm")


def test_missing_tesseract_says_how_to_install(monkeypatch):
    monkeypatch.setenv("PATH", "")
    with pytest.raises(MissingDependencyError, match="apt-get install tesseract-ocr"):
        OCRCaptioner()


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract-ocr not installed")
def test_ocr_model_name_round_trips():
    assert OCRCaptioner().model_name == "tesseract:eng"
    assert OCRCaptioner("tesseract:eng").model_name == OCRCaptioner("eng").model_name


class _VLM(JSONHandler):
    requests: list = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _VLM.requests.append(body)
        image = base64.b64decode(body["messages"][0]["content"][0]["image_url"]["url"].split(",", 1)[1])
        self.send_json({"choices": [{"message": {"content": f"  A slide, {len(image)} bytes.\n"}}]})


@pytest.fixture()
def vlm_server():
    httpd = HTTPServer(("127.0.0.1", 0), _VLM)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    _VLM.requests = []
    yield f"http://127.0.0.1:{httpd.server_port}/v1"
    httpd.shutdown()


def test_openai_captioner_sends_each_distinct_frame_once(vlm_server):
    captioner = create_captioner("openai", "test-vlm", vlm_server)
    assert (captioner.name, captioner.model_name) == ("openai", "test-vlm")
    captions = captioner.caption(FRAMES, SEGMENTS)
    assert len(_VLM.requests) == 3 and {r["model"] for r in _VLM.requests} == {"test-vlm"}
    parts = _VLM.requests[0]["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["image_url", "text"] and "frame" in parts[1]["text"]
    assert captions[0].text == f"seen: A slide, {len(SLIDES[0])} bytes. | said: First boil some water. Add a tea bag."
    assert captions[1].text.startswith(f"seen: A slide, {len(SLIDES[0])} bytes.")  # reused, not re-asked


def test_caption_model_needs_a_captioner():
    from videorag.config import IngestConfig
    from videorag.errors import ConfigError

    with pytest.raises(ConfigError, match="need `captioner`"):
        IngestConfig(caption_model="eng")
    assert IngestConfig(captioner="ocr", caption_model="eng").caption_base_url is None
