"""Each generator backend's contract: an Answer with citations of the evidence it used."""
from __future__ import annotations

import base64
import json
import threading
from http.server import HTTPServer

import pytest

from tests.http_doubles import JSONHandler
from videorag.config import GenerateConfig
from videorag.errors import GenerationError, UnknownBackendError
from videorag.generate import create_generator
from videorag.types import Evidence
from videorag.types import Frame, Hit, Segment

JPEG = b"\xff\xd8\xff\xe0fake-jpeg"


def _evidence() -> list[Evidence]:
    paint = Hit("v-paint", "/videos/paint.mp4", 25.0, 29.0, 0.9, "Let the first coat dry for four hours.")
    pan = Hit("v-pan", "/videos/pan.mp4", 8.0, 12.0, 0.5, "Scrub it with coarse salt.")
    return [
        Evidence(paint, [Segment(21.0, 24.6, "Roll the paint in a W pattern."),
                         Segment(25.0, 29.0, "Let the first coat dry for four hours before the second coat.")],
                 [Frame(1.0, JPEG + b"1"), Frame(20.0, JPEG + b"2")]),
        Evidence(pan, [Segment(8.0, 12.0, "Scrub it with coarse salt and hot water instead of soap.")],
                 [Frame(3.0, JPEG + b"3")]),
    ]


def test_unknown_backend_lists_valid_ones():
    with pytest.raises(UnknownBackendError, match="extractive, llamacpp, openai"):
        create_generator(GenerateConfig(backend="gpt"))


def test_extractive_picks_matching_sentence_and_cites_it(embedder):
    gen = create_generator(GenerateConfig(backend="extractive"), embedder)
    answer = gen.generate("How long should the coat dry?", _evidence())
    assert "four hours" in answer.answer
    assert answer.citations[0].video_id == "v-paint"
    assert (answer.citations[0].start, answer.citations[0].end) == (25.0, 29.0)
    assert answer.generator == "extractive"


def test_extractive_streams_its_answer_word_by_word(embedder):
    gen = create_generator(GenerateConfig(backend="extractive"), embedder)
    *pieces, answer = list(gen.stream("How long should the coat dry?", _evidence()))
    whole = gen.generate("How long should the coat dry?", _evidence())
    assert len(pieces) >= 5 and all(isinstance(p, str) and p.strip() for p in pieces)
    assert "".join(pieces) == answer.answer == whole.answer
    assert answer.citations == whole.citations and answer.generator == "extractive"


class _Recorder(JSONHandler):
    requests: list = []

    def do_GET(self):  # noqa: N802
        self.send_json({"data": [{"id": "test-vlm"}]})

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Recorder.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        self.send_json({"choices": [{"message": {"role": "assistant", "content": " Four hours. "}}]})



@pytest.fixture()
def server():
    httpd = HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    _Recorder.requests = []
    yield f"http://127.0.0.1:{httpd.server_port}/v1"
    httpd.shutdown()


def test_openai_sends_frames_then_text_per_video_and_question_last(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    gen = create_generator(GenerateConfig(backend="openai", base_url=server, max_tokens=64))
    answer = gen.generate("How long should the coat dry?", _evidence())
    assert answer.answer == "Four hours."
    assert [(c.video_id, c.start, c.end) for c in answer.citations] == [("v-paint", 21.0, 29.0),
                                                                        ("v-pan", 8.0, 12.0)]
    (request,) = _Recorder.requests
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer sk-test"
    body = request["body"]
    assert body["model"] == "test-vlm" and body["max_tokens"] == 64
    parts = body["messages"][-1]["content"]
    kinds = [p["type"] for p in parts]
    assert kinds == ["image_url", "image_url", "text", "image_url", "text", "text"]  # V1 t1 V2 t2 q
    images = [base64.b64decode(p["image_url"]["url"].split(",", 1)[1]) for p in parts if p["type"] == "image_url"]
    assert images == [JPEG + b"1", JPEG + b"2", JPEG + b"3"]
    assert "first coat dry" in parts[2]["text"] and "coarse salt" in parts[4]["text"]
    assert parts[-1]["text"] == "Question: How long should the coat dry?"


def test_openai_unreachable_server_is_a_clear_error():
    gen = create_generator(GenerateConfig(backend="openai", base_url="http://127.0.0.1:9/v1",
                                          model="m", timeout=2))
    with pytest.raises(GenerationError, match="cannot reach"):
        gen.generate("q?", _evidence())


@pytest.mark.slow
def test_llamacpp_answers_from_transcripts_with_citations():
    pytest.importorskip("xllamacpp", reason="installed by the llamacpp extra (make test)")
    gen = create_generator(GenerateConfig(backend="llamacpp", max_tokens=32))
    answer = gen.generate("How long should the first coat dry?", _evidence()[:1])
    assert answer.generator == "llamacpp" and answer.answer.strip()
    assert [(c.video_id, c.start, c.end) for c in answer.citations] == [("v-paint", 21.0, 29.0)]


@pytest.mark.slow
def test_llamacpp_streams_tokens_then_the_answer():
    pytest.importorskip("xllamacpp", reason="installed by the llamacpp extra (make test)")
    gen = create_generator(GenerateConfig(backend="llamacpp", max_tokens=24))
    *pieces, answer = list(gen.stream("How long should the first coat dry?", _evidence()[:1]))
    assert pieces and all(isinstance(p, str) for p in pieces)
    assert answer.answer == "".join(pieces).strip() and answer.generator == "llamacpp"
    assert [(c.video_id, c.start, c.end) for c in answer.citations] == [("v-paint", 21.0, 29.0)]


@pytest.mark.slow
def test_the_local_runtime_reports_a_prompt_over_its_context_and_a_file_that_is_no_model(tmp_path):
    pytest.importorskip("xllamacpp", reason="installed by the llamacpp extra (make test)")
    from videorag.errors import ModelNotFoundError
    from videorag.llm.gguf import LocalModel
    from videorag.models import GEMMA3_270M, resolve

    model = LocalModel(resolve(None, GEMMA3_270M)[0], n_ctx=256)   # (llama.cpp raises a smaller one)
    with pytest.raises(GenerationError, match="context") as error:
        model.complete({"prompt": "word " * 400, "max_tokens": 1})
    assert error.value.details["n_prompt_tokens"] > 256
    assert model.complete({"prompt": "The sky is", "max_tokens": 2})["choices"][0]["text"]   # still serving
    (tmp_path / "broken.gguf").write_bytes(b"GGUF" + b"\0" * 64)
    with pytest.raises(ModelNotFoundError, match="cannot load"):
        LocalModel(str(tmp_path / "broken.gguf")).warm_up()


@pytest.mark.slow
def test_a_chat_model_answers_with_numbered_citations_and_says_whether_the_moments_hold_the_answer():
    pytest.importorskip("xllamacpp", reason="installed by the llamacpp extra (make test)")
    from videorag.config import VerifyConfig
    from videorag.verify import verify

    small = "qwen2.5-coder-0.5b-instruct-q4_k_m"   # `videorag[judge-small]`: asked through chat, as the 1.5B
    config = GenerateConfig(backend="llamacpp", model=small, max_tokens=48, verify=VerifyConfig())
    gen = create_generator(config)
    evidence = _evidence()[:1]
    covered = gen.covered("How long should the first coat dry?", evidence)
    assert gen.chat and 0.0 <= covered <= 1.0   # the answerability stage's signal
    answer = verify(gen.generate("How long should the first coat dry?", evidence), evidence, None, config.verify)
    assert not answer.abstained and answer.claims and all(c.citations == [0] for c in answer.claims)
    assert all(c.end - c.start < evidence[0].citation.end - evidence[0].citation.start for c in answer.citations) \
        or len(evidence[0].segments) == 1   # each claim points at a sentence, not the whole excerpt
    assert gen.covered("How long should the first coat dry?", []) is None
