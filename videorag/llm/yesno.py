"""Yes/no questions to a language model, read as a probability: the judge's prompt and the two
clients that ask it — a local GGUF model (`LocalJudge`) or an OpenAI-compatible server
(`ServerJudge`, which also shows frames). The judge (`videorag.rerank.llm`), the llamacpp
generator's coverage question and the answer verifier (`videorag.verify`) all read P(yes) here.

The instruction and the question come first, the passage last, so a local model evaluates the
question once per query and only each passage after it (llama.cpp keeps the prompt of the last
request in each slot: the judge's question and the verifier's have a slot each, `JUDGING` and
`CLAIMS`, whose instructions a new process restores instead of evaluating, `videorag.llm.state`)."""

from __future__ import annotations

import logging
import math
import os

from ..config import RerankConfig
from ..errors import GenerationError
from ..resources import Resources
from .gguf import LocalModel, Slot, local_model
from .server import IMAGES, call, first_model, image_part, pick, refused_images, server_url, takes_images

log = logging.getLogger(__name__)

SYSTEM = "You check whether a passage from a video answers a question."
INSTRUCTION = (
    "Does the passage answer the question? The passage comes from speech recognition and can contain "
    "misheard words. Reply yes or no."
)
EVIDENCE = {"text": "Passage: {text}", "visual": "Passage: the video frames shown above."}
SUPPORT = (
    "Is the claim supported by the passage? The passage comes from speech recognition and can contain "
    "misheard words; the screen text is what the video shows. Reply yes or no."
)  # the answer verifier's question (`supports`)
TOP_LOGPROBS = 20
# a local model's slots (`videorag.llm.gguf`): the judge's question, the verifier's; each keeps its instruction
JUDGING = Slot("judging", (("system", SYSTEM), ("user", f"{INSTRUCTION}\n\nQuestion:")))
CLAIMS = Slot("claims", (("system", SYSTEM), ("user", f"{SUPPORT}\n\nPassage:")))


def prompt(question: str, evidence: str) -> str:
    """The user message: the instruction and the question (shared by every passage), then the passage."""
    return f"{INSTRUCTION}\n\nQuestion: {question.strip()}\n{evidence}"


def supports(passage: str, claim: str) -> str:
    """The user message asking whether `passage` says what `claim` says."""
    return f"{SUPPORT}\n\nPassage: {passage}\nClaim: {claim}"


def yes_probability(reply: object) -> float | None:
    """P(yes) / (P(yes) + P(no)) from a chat completion's first-token log-probabilities; without
    them, 1.0 or 0.0 from the reply's first word; None when the reply says neither."""
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
    first = str(text or "").strip().split(maxsplit=1)[:1]
    word = first[0].strip(".,!:;\"'").lower() if first else ""
    return {"yes": 1.0, "no": 0.0}.get(word)


class LocalJudge:
    """A GGUF model in-process (`videorag.llm.gguf`), text only; requests in order (`serial`)."""

    serial = True
    modalities = frozenset({"text"})

    def __init__(self, config: RerankConfig, resources: Resources | None = None):
        from ..models import QWEN_CODER_1_5B

        self.config, self.resources = config, resources
        self.model_label = config.model or QWEN_CODER_1_5B.name
        self._model: LocalModel | None = None

    def warm_up(self):
        """Resolve the model (assembled from its packages on first use) and load it."""
        if self._model is None:
            from ..models import QWEN_CODER_1_5B, resolve

            path, self.model_label = resolve(self.config.model, QWEN_CODER_1_5B)
            self._model = local_model(path, self.resources)  # the generator's copy when it uses the same model
        self._model.warm_up(f"the judge ({self.model_label})")
        return self._model

    def ask(self, system: str, text: str, jpegs: list[bytes]) -> dict:
        return self.warm_up().chat(
            {
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": text}],
                "max_tokens": 1,
                "temperature": 0.0,
                "logprobs": True,
                "top_logprobs": TOP_LOGPROBS,
            },
            CLAIMS if text.startswith(SUPPORT) else JUDGING,
        )


class ServerJudge:
    """An OpenAI-compatible chat server; requests in parallel. Asks for log-probabilities, and
    stops asking after a server refuses them."""

    serial = False
    modalities = frozenset({"text", "visual"})

    def __init__(self, config: RerankConfig, resources: Resources | None = None):
        self.config, self.url = config, server_url(config.base_url)
        self.model_label = config.model or os.environ.get("OPENAI_MODEL") or ""
        self.logprobs = True

    def warm_up(self) -> None:
        if not self.model_label:
            self.model_label = first_model(self.url, self.config.timeout)

    def ask(self, system: str, text: str, jpegs: list[bytes]) -> object:
        """The reply to one user message (decoded JSON); {} (unjudged) for frames a server takes no
        images for."""
        self.warm_up()
        if jpegs and not takes_images(self.url, self.model_label):
            return {}
        content = [image_part(j) for j in jpegs] + [{"type": "text", "text": text}] if jpegs else text
        body = {
            "model": self.model_label,
            "max_tokens": 1,
            "temperature": 0.0,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": content}],
        }
        try:
            return self._call(body)
        except GenerationError as exc:
            if jpegs and refused_images(exc, self.url, self.model_label):
                return {}
            raise

    def _call(self, body: dict) -> object:
        """`body` asked with log-probabilities, until a server refuses them (not for its images)."""
        if self.logprobs:
            try:
                return call(
                    self.url,
                    "/chat/completions",
                    {**body, "logprobs": True, "top_logprobs": TOP_LOGPROBS},
                    self.config.timeout,
                )
            except GenerationError as exc:
                said = getattr(exc, "reply", "")
                if (" 400" not in str(exc) and "logprob" not in said) or IMAGES.search(said):
                    raise
                log.info("judge server refused log-probabilities (%s); reading yes or no instead", exc)
                self.logprobs = False
        return call(self.url, "/chat/completions", {**body, "max_tokens": 3}, self.config.timeout)


CLIENTS: dict[str, type[LocalJudge] | type[ServerJudge]] = {
    "llamacpp": LocalJudge,
    "openai": ServerJudge,
}  # by `RerankConfig.generator` (config.JUDGES)
