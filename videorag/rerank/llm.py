"""`llm`: the judge. A language model reads each candidate alone with the question and says
whether it answers it; the score is P(yes) / (P(yes) + P(no)) from the log-probabilities of its
first reply token, in [0, 1] (pointwise: asked to compare numbered passages, small models name
one position whatever the passages say). The instruction and the question come first, the
passage last, so a local model evaluates the question once per query and only each passage after
it (llama.cpp keeps the prompt prefix of the last request).

Judges (`config.generator`):
- `llamacpp`: a local GGUF model in-process (`videorag.generate.gguf`), text only; default
  Qwen2.5-Coder-1.5B-Instruct (`pip install 'videorag[judge]'`), or `config.model` (a GGUF path
  or a model name `videorag models` lists).
- `openai`: any OpenAI-compatible chat server, text and visual candidates — a visual one's frames
  (at most `MAX_FRAMES` JPEGs, read from the index) go as images before the prompt. Log-
  probabilities where the server gives them, else the reply's yes or no as 1 or 0. Server URL from
  `config.base_url` / $OPENAI_BASE_URL; model from `config.model` / $OPENAI_MODEL / the server's
  first model; `config.timeout` per request; up to `config.batch_size` requests in flight.

A candidate with nothing to show (no text, or no frame in the index), or a reply that is neither
yes nor no, gets NaN (it keeps its own score). Judgements are memoised per process (the last
`CACHED` question-passage pairs): a question asked again costs nothing.
"""
from __future__ import annotations

import hashlib
import logging
import math
import os
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..config import JUDGES, RerankConfig
from ..errors import ConfigError, GenerationError
from ..retrieve.base import Candidate
from .base import ScoringReranker, modality

log = logging.getLogger(__name__)

SYSTEM = "You check whether a passage from a video answers a question."
INSTRUCTION = ("Does the passage answer the question? The passage comes from speech recognition and can contain "
               "misheard words. Reply yes or no.")
EVIDENCE = {"text": "Passage: {text}", "visual": "Passage: the video frames shown above."}
MAX_PASSAGE = 1500   # characters of a candidate's text shown to the judge
MAX_FRAMES = 5       # frames of a visual candidate shown to the judge
TOP_LOGPROBS = 20
CACHED = 4096


def prompt(question: str, evidence: str) -> str:
    """The user message: the instruction and the question (shared by every passage), then the passage."""
    return f"{INSTRUCTION}\n\nQuestion: {question.strip()}\n{evidence}"


def yes_probability(reply: object) -> float | None:
    """P(yes) / (P(yes) + P(no)) from a chat completion's first-token log-probabilities; without
    them, 1.0 or 0.0 from the reply's first word; None when the reply says neither."""
    from ..generate.openai import pick

    top = pick(reply, "choices", 0, "logprobs", "content", 0, "top_logprobs")
    if isinstance(top, list):
        mass = {"yes": 0.0, "no": 0.0}
        for entry in top:
            word = str(pick(entry, "token") or "").strip().lower()
            logprob = pick(entry, "logprob")
            if word in mass and isinstance(logprob, (int, float)):
                mass[word] += math.exp(logprob)
        if mass["yes"] + mass["no"] > 0:
            return mass["yes"] / (mass["yes"] + mass["no"])
    text = pick(reply, "choices", 0, "message", "content")
    word = str(text or "").strip().split(maxsplit=1)[:1]
    word = word[0].strip(".,!:;\"'").lower() if word else ""
    return {"yes": 1.0, "no": 0.0}.get(word)


class LLMReranker(ScoringReranker):
    name = "llm"
    calibrated = True

    def __init__(self, weight: float = 0.5, config: RerankConfig | None = None):
        super().__init__(weight, config or RerankConfig(backend="llm"))
        if self.config.generator not in JUDGES:
            raise ConfigError(f"the `llm` reranker judges through {', '.join(JUDGES)}, "
                              f"got generator {self.config.generator!r}",
                              "set the judge's backend (--judge-server URL for a server) to one of them")
        from ..generate import BACKENDS

        self.modalities = frozenset({"text", "visual"} if "reads-images" in BACKENDS.traits(self.config.generator)
                                    else {"text"})
        self._lock = threading.Lock()
        self._backend = None   # built on first use
        self._memo: OrderedDict[tuple, float] = OrderedDict()

    @property
    def label(self) -> str:
        """Which judge this is, for answers and reports: backend and model."""
        return f"{self.config.generator}:{self.backend.model_label}"

    @property
    def backend(self):
        with self._lock:
            if self._backend is None:
                self._backend = (LocalJudge if self.config.generator == "llamacpp" else ServerJudge)(self.config)
            return self._backend

    def warm_up(self) -> None:
        self.backend.warm_up()

    def forget(self) -> None:
        """Drop the remembered judgements (a measurement that must pay for its own)."""
        self._memo.clear()

    def score(self, qc, candidates: list[Candidate]) -> np.ndarray:
        out = np.full(len(candidates), np.nan)
        asks = {i: ask for i in self.judgeable(candidates) if (ask := self._ask(qc, candidates[i]))}
        if asks:
            log.info("judging %d moments…", len(asks), extra={"stage": True})
        out[list(asks)] = self.probabilities(list(asks.values()))
        return out

    def probabilities(self, asks: list[tuple[str, list[bytes]]]) -> np.ndarray:
        """P(yes) for each user message (with its JPEGs), memoised; NaN where the reply is
        neither yes nor no. The judge's own prompts come from `prompt`; other yes/no checks (the
        answer verifier's) bring theirs."""
        keys = [(text, hashlib.sha1(b"".join(jpegs)).hexdigest()) for text, jpegs in asks]
        first = {}
        for i, key in enumerate(keys):
            first.setdefault(key, i)
        todo = [i for key, i in first.items() if key not in self._memo]   # each new message once
        for i, value in zip(todo, self._judge([asks[i] for i in todo])):
            if value is None:
                log.info("llm judge: no yes or no for %r; it counts as unjudged", asks[i][0][-80:])
            self._remember(keys[i], math.nan if value is None else value)
        return np.array([self._memo.get(k, math.nan) for k in keys], np.float64)

    def _ask(self, qc, candidate: Candidate) -> tuple[str, list[bytes]] | None:
        """(user message, JPEGs) for one candidate, None when it has nothing to judge."""
        if modality(candidate) == "text":
            text = candidate.text.strip()[:MAX_PASSAGE]
            return (prompt(qc.query.text, EVIDENCE["text"].format(text=text)), []) if text else None
        jpegs = _jpegs(qc, candidate)
        return (prompt(qc.query.text, EVIDENCE["visual"]), jpegs) if jpegs else None

    def _judge(self, asks: list[tuple[str, list[bytes]]]) -> list[float | None]:
        if not asks:
            return []
        backend = self.backend
        if backend.serial:   # one local model: in order, so each passage reuses the question's prefix
            return [yes_probability(backend.ask(SYSTEM, text, jpegs)) for text, jpegs in asks]
        with ThreadPoolExecutor(min(self.config.batch_size, len(asks))) as pool:
            return list(pool.map(lambda a: yes_probability(backend.ask(SYSTEM, *a)), asks))

    def _remember(self, key: tuple, value: float) -> None:
        with self._lock:
            self._memo[key] = value
            self._memo.move_to_end(key)
            while len(self._memo) > CACHED:
                self._memo.popitem(last=False)


def _jpegs(qc, candidate: Candidate) -> list[bytes]:
    """JPEGs of a visual candidate's frames (at most MAX_FRAMES, each frame once)."""
    video_id = qc.corpus.video_ids[candidate.video]
    frames = {}
    for t in candidate.frames[:MAX_FRAMES]:
        frame = qc.searcher.frames.frame_near(video_id, t) if qc.searcher.frames is not None else None
        if frame is not None:
            frames.setdefault(frame.t, frame.jpeg)
    return list(frames.values())



class LocalJudge:
    """A GGUF model in-process (`videorag.generate.gguf`); requests in order (`serial`)."""

    serial = True

    def __init__(self, config: RerankConfig):
        from ..models import QWEN_CODER_1_5B

        self.config = config
        self.model_label = config.model or QWEN_CODER_1_5B.name
        self._model = None

    def warm_up(self):
        """Resolve the model (assembled from its packages on first use) and load it."""
        if self._model is None:
            from ..generate.gguf import local_model
            from ..models import QWEN_CODER_1_5B, resolve

            path, self.model_label = resolve(self.config.model, QWEN_CODER_1_5B)
            self._model = local_model(path)   # the generator's copy when it uses the same model
        self._model.warm_up(f"the judge ({self.model_label})")
        return self._model

    def ask(self, system: str, text: str, jpegs: list[bytes]) -> dict:
        return self.warm_up().chat({"messages": [{"role": "system", "content": system},
                                                 {"role": "user", "content": text}],
                                    "max_tokens": 1, "temperature": 0.0, "logprobs": True,
                                    "top_logprobs": TOP_LOGPROBS})


class ServerJudge:
    """An OpenAI-compatible chat server; requests in parallel. Asks for log-probabilities, and
    stops asking after a server refuses them."""

    serial = False

    def __init__(self, config: RerankConfig):
        from ..generate.openai import server_url

        self.config, self.url = config, server_url(config.base_url)
        self.model_label = config.model or os.environ.get("OPENAI_MODEL") or ""
        self.logprobs = True

    def warm_up(self) -> None:
        if not self.model_label:
            from ..generate.openai import first_model

            self.model_label = first_model(self.url, self.config.timeout)

    def ask(self, system: str, text: str, jpegs: list[bytes]) -> dict:
        """The reply to one user message; {} (unjudged) for frames a server takes no images for."""
        from ..generate.openai import image_part, refused_images, takes_images

        self.warm_up()
        if jpegs and not takes_images(self.url, self.model_label):
            return {}
        content = [image_part(j) for j in jpegs] + [{"type": "text", "text": text}] if jpegs else text
        body = {"model": self.model_label, "max_tokens": 1, "temperature": 0.0,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": content}]}
        try:
            return self._call(body)
        except GenerationError as exc:
            if jpegs and refused_images(exc, self.url, self.model_label):
                return {}
            raise

    def _call(self, body: dict) -> dict:
        """`body` asked with log-probabilities, until a server refuses them (not for its images)."""
        from ..generate.openai import IMAGES, call

        if self.logprobs:
            try:
                return call(self.url, "/chat/completions", {**body, "logprobs": True, "top_logprobs": TOP_LOGPROBS},
                            self.config.timeout)
            except GenerationError as exc:
                said = getattr(exc, "reply", "")
                if (" 400" not in str(exc) and "logprob" not in said) or IMAGES.search(said):
                    raise
                log.info("judge server refused log-probabilities (%s); reading yes or no instead", exc)
                self.logprobs = False
        return call(self.url, "/chat/completions", {**body, "max_tokens": 3}, self.config.timeout)
