"""The scoring rerankers (`e5`, `cross-encoder`, `llm`) on the `ScoringReranker` contract: one
score per candidate, NaN for what a backend cannot judge, `rerank` keeping every candidate.
Each backend runs for real: e5 with its bundled weights, the cross-encoder on a tiny randomly
initialised BERT saved by the test, the LLM judge against a local OpenAI-compatible server."""
from __future__ import annotations

import io
import json
import logging
import math
import threading
from http.server import ThreadingHTTPServer
from types import SimpleNamespace

import numpy as np
import pytest
from PIL import Image

from tests.http_doubles import JSONHandler
from videorag.config import RerankConfig
from videorag.errors import ConfigError, GenerationError, ModelNotFoundError
from videorag.rerank import RERANKERS, create_reranker
from videorag.llm.yesno import INSTRUCTION, yes_probability
from videorag.rerank.llm import MAX_FRAMES, MAX_PASSAGE
from videorag.retrieve import Candidate
from videorag.retrieve.base import Query
from videorag.types import Frame

QUESTION = "How do I boil water for tea?"
ANSWERS = "Boil fresh water in a kettle, then pour it over the tea bag."
UNRELATED = "Paint the wall with a roller and let the first coat dry for four hours."


class _Index:
    """The one index method rerankers use: a frame per whole second of each video, as JPEG."""

    def __init__(self, seconds: int = 4):
        self.seconds = seconds

    def frame_near(self, video_id: str, t: float) -> Frame | None:
        if video_id == "v-empty":
            return None
        nearest = float(min(max(round(t), 0), self.seconds - 1))
        buffer = io.BytesIO()
        Image.new("RGB", (16, 16), (int(nearest) * 40, 90, 140)).save(buffer, format="JPEG")
        return Frame(nearest, buffer.getvalue())


def _qc(question: str = QUESTION):
    return SimpleNamespace(query=Query(question),
                           corpus=SimpleNamespace(video_ids=["v-tea", "v-paint", "v-empty"]),
                           searcher=SimpleNamespace(frames=_Index()))


def _text(video: int, text: str, score: float = 0.5, source: str = "text-clip") -> Candidate:
    return Candidate(video, "chunk", 10.0 * video, 10.0 * video + 5, score, source, text)


def _visual(video: int, frames: tuple[float, ...], score: float = 0.5,
            source: str = "visual-frame") -> Candidate:
    return Candidate(video, "chunk", 0.0, 5.0, score, source, "", frames)


def _check_rerank(reranker, qc, candidates: list[Candidate]) -> list[Candidate]:
    """`rerank` keeps every candidate, ranks by the mixed score and marks what it judged."""
    raw = reranker.score(qc, candidates)
    ranked = reranker.rerank(qc, candidates)
    key = lambda c: (c.video, c.start, c.text, c.frames)  # noqa: E731
    assert sorted(map(key, ranked)) == sorted(map(key, candidates))
    scores = [c.score for c in ranked]
    assert scores == sorted(scores, reverse=True)
    for c in ranked:
        i = next(i for i, o in enumerate(candidates) if key(o) == key(c))
        judged = not np.isnan(raw[i])
        assert c.source == (f"{candidates[i].source}+{reranker.name}" if judged else candidates[i].source)
        if not judged:
            assert c.score == candidates[i].score   # what it cannot judge keeps its own score
    return ranked


def test_the_scoring_backends_are_registered_by_name():
    for name in ("e5", "cross-encoder", "llm"):
        reranker = create_reranker(RerankConfig(backend=name), weight=0.3)
        assert reranker.name == name and reranker.weight == 0.3
    assert "cross-encoder" in RERANKERS.names() and "llm" in RERANKERS.names()


# -- e5 -----------------------------------------------------------------------------------------
@pytest.mark.slow
def test_e5_scores_the_answering_passage_above_an_unrelated_one_and_skips_frames():
    reranker = create_reranker(RerankConfig(backend="e5"))
    candidates = [_text(1, UNRELATED, 0.9), _visual(0, (1.0,), 0.8), _text(0, ANSWERS, 0.1)]
    raw = reranker.score(_qc(), candidates)
    assert raw.shape == (3,) and np.isnan(raw[1]) and np.isfinite(raw[[0, 2]]).all()
    assert raw[2] > raw[0]
    ranked = _check_rerank(create_reranker(RerankConfig(backend="e5"), weight=1.0), _qc(), candidates)
    assert ranked[0].text == ANSWERS   # weight 1: the reranker's order wins over the own scores


@pytest.mark.slow
def test_e5_embeds_a_passage_once_across_queries(monkeypatch):
    reranker = create_reranker(RerankConfig(backend="e5"))
    candidates = [_text(1, UNRELATED, 0.9), _text(0, ANSWERS, 0.1), _text(2, ANSWERS, 0.2)]
    first = reranker.score(_qc(), candidates)
    assert first[1] == pytest.approx(first[2], rel=1e-6)   # one text, one vector
    embedded = []
    model = reranker.e5.model()
    monkeypatch.setattr(reranker.e5, "model", lambda: _Counting(model, embedded))
    again = reranker.score(_qc(), candidates + [_text(3, "a passage never seen before", 0.0)])
    np.testing.assert_allclose(again[:3], first, rtol=1e-6)
    assert embedded == [["a passage never seen before"]]   # only the new passage was embedded


class _Counting:
    def __init__(self, model, log: list):
        self.model, self.log = model, log

    def passage(self, texts):
        self.log.append(list(texts))
        return self.model.passage(texts)

    def query(self, text):
        return self.model.query(text)


# -- cross-encoder ------------------------------------------------------------------------------
WORDS = ("how do i boil water for tea fresh in a kettle then pour it over the bag paint wall with "
         "roller and let first coat dry four hours").split()


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory) -> str:
    """A randomly initialised 2-layer BERT with one output, saved as a local model folder."""
    torch = pytest.importorskip("torch")
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *dict.fromkeys(WORDS), ",", "."]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    BertTokenizer(str(folder / "vocab.txt"), model_max_length=128).save_pretrained(folder)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=128, num_labels=1)
    BertForSequenceClassification(config).save_pretrained(folder)
    return str(folder)


def _logits(folder: str, question: str, texts: list[str]) -> np.ndarray:
    """The model's own output for each (question, text) pair, computed with transformers alone."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder)
    with torch.no_grad():
        return np.array([model(**tokenizer(question, t, return_tensors="pt")).logits.item() for t in texts])


@pytest.mark.slow
def test_cross_encoder_gives_the_models_raw_output_for_text_and_nan_for_frames(tiny_cross_encoder):
    config = RerankConfig(backend="cross-encoder", model=tiny_cross_encoder, batch_size=2)
    candidates = [_text(0, ANSWERS), _visual(0, (1.0,)), _text(1, UNRELATED, source="text-frame"),
                  _text(1, "boil water")]
    raw = create_reranker(config).score(_qc(), candidates)
    assert raw.shape == (4,) and np.isnan(raw[1]) and np.isfinite(raw[[0, 2, 3]]).all()
    expected = _logits(tiny_cross_encoder, QUESTION, [ANSWERS, UNRELATED, "boil water"])
    np.testing.assert_allclose(raw[[0, 2, 3]], expected, atol=1e-4)   # logits, no sigmoid
    assert len(set(np.round(raw[[0, 2, 3]], 6))) == 3


@pytest.mark.slow
def test_cross_encoder_is_deterministic_and_rerank_keeps_every_candidate(tiny_cross_encoder):
    candidates = [_text(0, ANSWERS, 0.2), _visual(1, (2.0,), 0.95), _text(1, UNRELATED, 0.6),
                  _text(2, "pour the water over the tea", 0.4), _visual(2, (0.0,), 0.1, "visual-clip")]
    one = create_reranker(RerankConfig(backend="cross-encoder", model=tiny_cross_encoder, batch_size=1))
    many = create_reranker(RerankConfig(backend="cross-encoder", model=tiny_cross_encoder, batch_size=16))
    first = one.score(_qc(), candidates)
    np.testing.assert_array_equal(first, one.score(_qc(), candidates))
    np.testing.assert_allclose(first, many.score(_qc(), candidates), atol=1e-5)   # batching changes nothing
    ranked = _check_rerank(one, _qc(), candidates)
    assert ranked == one.rerank(_qc(), candidates)
    text = [c for c in ranked if c.source.endswith("+cross-encoder")]
    assert len(text) == 3 and {c.score for c in text} != {c.score for c in candidates[::2]}


def test_cross_encoder_without_a_model_says_how_to_give_one():
    with pytest.raises(ConfigError, match="--rerank-model"):
        create_reranker(RerankConfig(backend="cross-encoder")).score(_qc(), [_text(0, ANSWERS)])


@pytest.mark.slow
def test_cross_encoder_with_a_folder_that_is_no_model_fails_with_a_hint(tmp_path):
    (tmp_path / "notes.txt").write_text("not a model")
    reranker = create_reranker(RerankConfig(backend="cross-encoder", model=str(tmp_path)))
    with pytest.raises(ModelNotFoundError, match="--rerank-model") as error:
        reranker.score(_qc(), [_text(0, ANSWERS)])
    assert len(str(error.value).splitlines()) == 1


# -- llm: the judge ------------------------------------------------------------------------------
def _logprobs(yes: float) -> dict:
    """A chat completion whose first token is Yes or No, with top log-probabilities."""
    top = [{"token": "Yes", "logprob": math.log(yes)}, {"token": "No", "logprob": math.log(1 - yes)},
           {"token": "The", "logprob": math.log(0.001)}]
    return {"choices": [{"message": {"role": "assistant", "content": "Yes" if yes >= 0.5 else "No"},
                         "logprobs": {"content": [{"token": top[0]["token"], "logprob": top[0]["logprob"],
                                                   "top_logprobs": top}]}}]}


class _Judge(JSONHandler):
    """An OpenAI-compatible judge whose reply depends on the passage: "kettle" 0.9 yes, "overflow"
    a bare "yes." (no log-probabilities), "mystery" "maybe", "explode" an HTTP 500, a visual request
    P(yes) = its number of images / 10, any other passage 0.2. With `refuse_logprobs`, a request
    asking for log-probabilities gets a 400."""

    def do_GET(self):  # noqa: N802
        self.send_json({"data": [{"id": "listed-judge"}]})

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.bodies.append(body)
        if body.get("logprobs") and self.server.refuse_logprobs:
            return self.send_json({"error": {"message": "logprobs are not supported"}}, 400)
        content = body["messages"][-1]["content"]
        parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
        text = " ".join(p["text"] for p in parts if p["type"] == "text")
        images = sum(p["type"] == "image_url" for p in parts)
        passage = text.partition("Passage:")[2]
        if "explode" in passage:
            return self.send_json({"error": {"message": "the judge fell over"}}, 500)
        if "overflow" in passage or "mystery" in passage:
            word = "yes." if "overflow" in passage else "maybe"
            return self.send_json({"choices": [{"message": {"role": "assistant", "content": word}}]})
        yes = images / 10 if images else 0.9 if "kettle" in passage else 0.2
        reply = _logprobs(yes)
        if not body.get("logprobs"):
            reply["choices"][0].pop("logprobs")
        self.send_json(reply)


@pytest.fixture()
def judge(monkeypatch):
    for name in ("OPENAI_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Judge)
    httpd.url, httpd.bodies, httpd.lock = f"http://127.0.0.1:{httpd.server_port}/v1", [], threading.Lock()
    httpd.refuse_logprobs = False
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _llm(url: str, **kw):
    return create_reranker(RerankConfig(backend="llm", generator="openai", base_url=url, timeout=5.0, **kw))


def _user(body: dict):
    return body["messages"][-1]["content"]


def test_llm_scores_p_yes_and_orders_by_it(judge):
    candidates = [_text(1, UNRELATED, 0.9), _text(0, ANSWERS.replace("kettle", "pot"), 0.5),
                  _text(0, ANSWERS, 0.1), _text(2, "overflow " * 3, 0.3, "text-frame")]
    reranker = _llm(judge.url)
    np.testing.assert_allclose(reranker.score(_qc(), candidates), [0.2, 0.2, 0.9, 1.0])
    assert {b["model"] for b in judge.bodies} == {"listed-judge"}   # the server's first model
    assert all(b["max_tokens"] <= 3 and b["messages"][0]["role"] == "system" for b in judge.bodies)
    # the instruction and the question come first, the passage last (a shared prefix to cache)
    assert all(_user(b).index(QUESTION) < _user(b).index("Passage:") for b in judge.bodies)
    assert all(_user(b).startswith(INSTRUCTION) for b in judge.bodies)
    ranked = _check_rerank(_llm(judge.url), _qc(), candidates)
    assert [c.text for c in ranked][:2] == ["overflow " * 3, ANSWERS]


def test_llm_asks_each_pair_once(judge):
    reranker = _llm(judge.url, model="m")
    first = reranker.score(_qc(), [_text(0, ANSWERS), _text(1, UNRELATED)])
    again = reranker.score(_qc(), [_text(1, UNRELATED), _text(0, ANSWERS), _text(2, "a new one")])
    np.testing.assert_allclose(again[:2], first[::-1])
    assert len(judge.bodies) == 3   # only the new passage was asked


def test_llm_reads_yes_or_no_when_the_server_refuses_log_probabilities(judge, caplog):
    judge.refuse_logprobs = True
    reranker = _llm(judge.url, model="m")
    with caplog.at_level(logging.INFO, logger="videorag"):
        first = reranker.score(_qc(), [_text(0, ANSWERS)])
    raw = reranker.score(_qc(), [_text(0, ANSWERS), _text(1, UNRELATED)])
    np.testing.assert_array_equal(np.r_[first, raw], [1.0, 1.0, 0.0])
    assert [bool(b.get("logprobs")) for b in judge.bodies] == [True, False, False]   # refused once, not asked again
    assert any("refused log-probabilities" in r.getMessage() for r in caplog.records)


def test_llm_reply_neither_yes_nor_no_is_nan_and_logged(judge, caplog):
    candidates = [_text(0, ANSWERS, 0.1), _text(1, "a mystery", 0.8), _text(2, "", 0.5)]
    with caplog.at_level(logging.INFO, logger="videorag"):
        raw = _llm(judge.url, model="my-judge").score(_qc(), candidates)
    assert raw[0] == pytest.approx(0.9) and np.isnan(raw[1]) and np.isnan(raw[2])   # empty: not asked
    assert len(judge.bodies) == 2 and {b["model"] for b in judge.bodies} == {"my-judge"}
    assert any("no yes or no" in r.getMessage() and r.levelno == logging.INFO for r in caplog.records)
    ranked = _check_rerank(_llm(judge.url), _qc(), candidates)
    assert ranked[0].text == "a mystery" and ranked[0].score == 0.8


def test_llm_sends_a_visual_candidates_frames_as_images(judge):
    frames = (0.0, 0.9, 1.0, 1.1, 2.0, 3.0, 3.2)   # the first five are frames 0, 1, 1, 1, 2: three images
    candidates = [_visual(0, frames), _visual(1, (2.0,), source="visual-clip"), _visual(2, (1.0,)),
                  _text(0, ANSWERS)]
    raw = _llm(judge.url).score(_qc(), candidates)
    np.testing.assert_allclose(raw[[0, 1, 3]], [0.3, 0.1, 0.9])
    assert np.isnan(raw[2])   # no frame in the index: nothing to show
    visual = [b for b in judge.bodies if isinstance(_user(b), list)]
    assert len(visual) == 2
    counts = []
    for body in visual:
        parts = _user(body)
        prompt = parts[-1]
        assert prompt["type"] == "text" and "frames" in prompt["text"]
        images = [p["image_url"]["url"] for p in parts[:-1]]
        assert all(url.startswith("data:image/jpeg;base64,/9j/") for url in images)   # JPEG magic
        assert len(set(images)) == len(images)   # a frame reached by several times is sent once
        counts.append(len(images))
    assert sorted(counts) == [1, 3] and max(counts) <= MAX_FRAMES   # first 5 times → 3 distinct frames


def test_llm_truncates_long_passages(judge):
    _llm(judge.url).score(_qc(), [_text(0, "kettle " + "x" * 10_000)])
    (body,) = judge.bodies
    assert "x" * MAX_PASSAGE not in _user(body)
    assert len(_user(body)) < MAX_PASSAGE + 500


def test_llm_server_error_is_one_generation_error(judge):
    with pytest.raises(GenerationError, match="500") as error:
        _llm(judge.url).score(_qc(), [_text(0, ANSWERS), _text(1, "explode now")])
    assert len(str(error.value).splitlines()) == 1


def test_llm_unreachable_server_is_a_generation_error():
    with pytest.raises(GenerationError, match="cannot reach"):
        _llm("http://127.0.0.1:9/v1", model="m").score(_qc(), [_text(0, ANSWERS)])


def test_yes_probability_reads_log_probabilities_else_the_first_word():
    assert yes_probability(_logprobs(0.75)) == pytest.approx(0.75)
    lower = {"choices": [{"logprobs": {"content": [{"top_logprobs": [
        {"token": " yes", "logprob": math.log(0.3)}, {"token": "YES", "logprob": math.log(0.1)},
        {"token": "no", "logprob": math.log(0.4)}]}]}}]}
    assert yes_probability(lower) == pytest.approx(0.4 / 0.8)   # case and spaces folded, masses summed
    word = lambda text: {"choices": [{"message": {"content": text}}]}  # noqa: E731
    assert yes_probability(word("Yes, it does.")) == 1.0 and yes_probability(word(" no")) == 0.0
    assert yes_probability(word("Perhaps")) is None and yes_probability({"error": "x"}) is None


def test_llm_through_llamacpp_judges_text_only_and_needs_a_known_generator():
    reranker = create_reranker(RerankConfig(backend="llm", generator="llamacpp"))
    assert reranker.modalities == {"text"}
    raw = reranker.score(_qc(), [_visual(0, (1.0,)), _visual(1, (2.0,), source="visual-clip")])
    assert np.isnan(raw).all()   # nothing it can judge: no model loaded, no request
    assert reranker._backend is None
    with pytest.raises(ConfigError, match="llamacpp, openai"):
        create_reranker(RerankConfig(backend="llm", generator="extractive"))


SMALL_JUDGE = "qwen2.5-coder-0.5b-instruct-q4_k_m"   # `videorag[judge-small]`, installed for the tests


@pytest.mark.slow
def test_llm_through_llamacpp_gives_probabilities_from_a_local_model():
    pytest.importorskip("xllamacpp", reason="installed by the llamacpp extra")
    reranker = create_reranker(RerankConfig(backend="llm", generator="llamacpp", model=SMALL_JUDGE))
    raw = reranker.score(_qc(), [_text(0, ANSWERS), _visual(0, (1.0,)), _text(1, UNRELATED)])
    assert raw.shape == (3,) and np.isnan(raw[1])
    assert np.all((raw[[0, 2]] > 0) & (raw[[0, 2]] < 1))   # a probability, not a 0/1 word
    assert reranker.label == f"llamacpp:{SMALL_JUDGE}"


@pytest.mark.slow
def test_the_local_judge_evaluates_the_question_once_per_query():
    """Each passage after the first reuses the evaluated instruction and question (llama.cpp's
    prompt cache): only the passage and the reply's opening are new tokens."""
    pytest.importorskip("xllamacpp", reason="installed by the llamacpp extra")
    from videorag.llm.yesno import SYSTEM, LocalJudge, prompt

    local = LocalJudge(RerankConfig(backend="llm", model=SMALL_JUDGE))
    replies = [local.ask(SYSTEM, prompt(QUESTION, f"Passage: {text}"), []) for text in (ANSWERS, UNRELATED)]
    first, second = (r["usage"] for r in replies)
    shared = second["prompt_tokens_details"]["cached_tokens"]
    assert shared >= first["prompt_tokens"] - len(ANSWERS.split()) * 3   # all but the first passage
    assert second["prompt_tokens"] - shared < 40


def test_the_moment_reranker_gets_the_model_given_with_rerank_model():
    """`search --moment-reranker cross-encoder --rerank-model DIR`: each video's moments are rescored by that model."""
    from videorag.rerank import moment_reranker

    reranker = moment_reranker("cross-encoder", 0.5, None, "/models/my-ce")
    assert reranker.config.model == "/models/my-ce" and reranker.config.backend == "cross-encoder"
    assert moment_reranker("llm", 0.3, None, None, "openai", "http://judge").config.base_url == "http://judge"
