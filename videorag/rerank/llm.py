"""`llm`: pointwise relevance judged by a language model. Each candidate is sent alone with the
query and `PROMPT`; the reply's first number, clamped to [0, 10], is its score. A reply with no
number gives NaN (the candidate keeps its own score) and an INFO log line.

Judges (`config.generator`):
- `openai`: any OpenAI-compatible chat server, text and visual candidates — a visual one's
  frames (at most `MAX_FRAMES` JPEGs, read from the index) go as images before the prompt.
  Server URL from `config.base_url` / $OPENAI_BASE_URL; model from `config.model` /
  $OPENAI_MODEL / the server's first model; `config.timeout` per request; up to
  `config.batch_size` requests in flight. A failed request raises `GenerationError`.
- `llamacpp`: a local GGUF model (`config.model`, default Gemma 3 270M) as a plain completion;
  text only, one candidate at a time.

A candidate with nothing to show (no text, or no frame in the index) gets NaN without a request.
"""
from __future__ import annotations

import logging
import re
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..config import GenerateConfig, RerankConfig
from ..errors import ConfigError
from ..retrieve.base import Candidate
from .base import ScoringReranker, modality

log = logging.getLogger(__name__)

# The whole instruction; {evidence} names what is judged, {passage} is "Passage: …\n" for a text
# candidate and "" for a visual one (its frames come as images before this text).
PROMPT = ("Rate the relevance of the {evidence} to the question, from 0 (unrelated) to 10 "
          "(directly answers it). Reply with the number only.\n\n"
          "Question: {question}\n{passage}Relevance (0-10):")
EVIDENCE = {"text": "passage", "visual": "video frames shown above"}
MAX_PASSAGE = 1500   # characters of a candidate's text shown to the judge
MAX_FRAMES = 5       # frames of a visual candidate shown to the judge
REPLY_TOKENS = {"openai": 8, "llamacpp": 4}
JUDGES = ("openai", "llamacpp")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def parse_score(reply: str) -> float | None:
    """The first number of a reply, clamped to [0, 10]; None when it has none."""
    match = _NUMBER.search(reply)
    return min(max(float(match.group()), 0.0), 10.0) if match else None


class LLMReranker(ScoringReranker):
    name = "llm"

    def __init__(self, weight: float = 0.5, config: RerankConfig | None = None):
        super().__init__(weight, config or RerankConfig(backend="llm"))
        if self.config.generator not in JUDGES:
            raise ConfigError(f"the `llm` reranker judges through {', '.join(JUDGES)}, "
                              f"got generator {self.config.generator!r}",
                              "set the reranker's generator (--rerank-generator) to one of them")
        self.modalities = frozenset({"text", "visual"} if self.config.generator == "openai" else {"text"})
        self._lock = threading.Lock()
        self._generator = None   # the judge, built on first use

    def score(self, qc, candidates: list[Candidate]) -> np.ndarray:
        out = np.full(len(candidates), np.nan)
        asks = [(i, ask) for i in self.judgeable(candidates) if (ask := self._ask(qc, candidates[i]))]
        for (i, _), reply in zip(asks, self._replies([ask for _, ask in asks])):
            value = parse_score(reply)
            if value is None:
                log.info("llm reranker: reply %r has no score; candidate %d keeps its own", reply[:80], i)
            else:
                out[i] = value
        return out

    def _ask(self, qc, candidate: Candidate) -> tuple[str, list[bytes]] | None:
        """(prompt, JPEGs) for one candidate, None when it has nothing to judge."""
        kind = modality(candidate)
        if kind == "text":
            text = candidate.text.strip()[:MAX_PASSAGE]
            passage, jpegs = f"Passage: {text}\n", []
            if not text:
                return None
        else:
            passage, jpegs = "", _jpegs(qc, candidate)
            if not jpegs:
                return None
        return PROMPT.format(evidence=EVIDENCE[kind], question=qc.query.text, passage=passage), jpegs

    def _replies(self, asks: list[tuple[str, list[bytes]]]) -> list[str]:
        if not asks:
            return []
        judge = self._judge()
        if self.config.generator == "llamacpp":
            with self._lock:   # one local model: calls serialised
                return [judge.complete(prompt, REPLY_TOKENS["llamacpp"]) for prompt, _ in asks]
        tokens = REPLY_TOKENS["openai"]
        ask = lambda a: judge.complete_with_images(a[0], a[1], tokens) if a[1] else judge.complete(a[0], tokens)  # noqa: E731
        with ThreadPoolExecutor(min(self.config.batch_size, len(asks))) as pool:
            return list(pool.map(ask, asks))

    def _judge(self):
        """The judging generator, built once (the `openai` one resolves its model on first use)."""
        with self._lock:
            if self._generator is None:
                from ..generate import create_generator

                cfg = self.config
                self._generator = create_generator(GenerateConfig(
                    backend=cfg.generator, model=cfg.model, base_url=cfg.base_url, timeout=cfg.timeout))
            return self._generator


def _jpegs(qc, candidate: Candidate) -> list[bytes]:
    """JPEGs of a visual candidate's frames (at most MAX_FRAMES, each frame once)."""
    video_id = qc.corpus.video_ids[candidate.video]
    frames = {}
    for t in candidate.frames[:MAX_FRAMES]:
        frame = qc.searcher.index.frame_near(video_id, t)
        if frame is not None:
            frames.setdefault(frame.t, frame.jpeg)
    return list(frames.values())
