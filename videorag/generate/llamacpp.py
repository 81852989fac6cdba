"""A local GGUF model (llama.cpp in-process, `videorag.llm.gguf`), text only: transcripts
and on-screen text.

Default model: Qwen2.5-Coder-1.5B-Instruct, the judge's model, when it is installed (`videorag
[judge]`; one copy in memory serves both), asked through its chat template to answer from
numbered moments and cite them as `[n]`. `covered` asks it, with the same prompt, whether the
moments hold the answer at all: a signal of the answerability stage (`videorag.answerability`),
which decides whether to answer; the answer's request then reuses the prompt already evaluated.
(Asked to answer or say NOT COVERED in one go, it says NOT COVERED to most answerable questions
too.) Else Gemma 3 270M (`videorag[llamacpp]`), a base model, as a plain completion. `config.model`
takes a GGUF path or a model name `videorag models` lists (any model
but Gemma 270M is asked through chat).
"""

from __future__ import annotations

from ..config import GenerateConfig
from ..languages import name as language_name
from ..languages import text_language
from ..llm.gguf import CONTEXT, LocalModel, Slot, local_model
from ..llm.yesno import TOP_LOGPROBS, yes_probability
from ..models import GEMMA3_270M, QWEN_CODER_1_5B, resolve
from ..resources import Resources
from ..types import Answer, span
from .prompt import completion_prompt

_STOP = ["\n\n", "Question:", "Transcript of video"]
CHARS_PER_TOKEN = 3.0  # English text runs ~4 characters a token: a prompt is cut before it overflows
SYSTEM = (
    "You answer questions about how-to videos from the numbered moments below. Their text comes from "
    "speech recognition, so some words are misheard. Answer in one or two short sentences and cite the "
    "moments you use, like [1]."
)
WRITING = Slot("writing", (("system", SYSTEM), ("user", "Moments:")))  # what a chat request starts with
COMPLETING = Slot("writing")  # a completion model's prompt: no prefix kept
COVERED = "\n\nDo these moments contain the answer to the question? Reply only yes or no."


class LlamaCppGenerator:
    name = "llamacpp"

    def __init__(self, config: GenerateConfig | None = None, embedder=None, resources: Resources | None = None):
        self.config = config or GenerateConfig(backend="llamacpp")
        self.resources = resources  # its owner's: the judge's copy of the model when it is the same
        self.n_ctx = CONTEXT
        self._llm: LocalModel | None = None
        self.model_path: str | None = None
        self.model_name: str | None = None

    @property
    def chat(self) -> bool:
        """Asked through chat messages (an instruction-tuned model), not a plain completion."""
        self.warm_up()
        return self.model_name != GEMMA3_270M.name

    def warm_up(self) -> None:
        if self._llm is None:
            from ..models import judge_available as available

            default = QWEN_CODER_1_5B if available() else GEMMA3_270M  # the judge's model, when installed
            self.model_path, self.model_name = resolve(self.config.model, default)
            self._llm = local_model(self.model_path, self.resources)
        self._llm.warm_up()

    @property
    def _model(self) -> LocalModel:
        """The model `warm_up` loaded (each caller asks `chat` or calls `warm_up` first)."""
        assert self._llm is not None, "warm_up() first"
        return self._llm

    def generate(self, question: str, evidence: list) -> Answer:
        request = self._request(question, evidence)
        if self.chat:
            text = self._model.chat(request, WRITING)["choices"][0]["message"]["content"]
        else:
            text = self._model.complete(request, COMPLETING)["choices"][0]["text"]
        return self._answer(question, evidence, text)

    def stream(self, question: str, evidence: list):
        """Optional contract method: the answer's text pieces as they are generated, then the
        Answer (what `generate` returns)."""
        request, chat = self._request(question, evidence), self.chat
        pieces: list[str] = []
        route, slot = ("handle_chat_completions", WRITING) if chat else ("handle_completions", COMPLETING)
        for chunk in self._model.stream(request, route, slot):
            choice = (chunk.get("choices") or [{}])[0]
            piece = ((choice.get("delta") or {}).get("content") if chat else choice.get("text")) or ""
            if piece and (pieces or piece.strip()):  # no leading blank pieces
                pieces.append(piece)
                yield piece
        answer = self._answer(question, evidence, "".join(pieces))
        if not pieces:
            yield answer.answer
        yield answer

    def covered(self, question: str, evidence: list) -> float | None:
        """Optional contract method: P(yes) to "do these moments contain the answer?", asked with
        the prompt the answer is written from (its evaluated prefix is reused by the answer);
        None from a completion model, which is not asked."""
        if not self.chat or not evidence:
            return None
        request = self._request(question, evidence)
        user = request["messages"][-1]["content"] + COVERED
        probe = {
            "messages": [*request["messages"][:-1], {"role": "user", "content": user}],
            "max_tokens": 1,
            "temperature": 0.0,
            "logprobs": True,
            "top_logprobs": TOP_LOGPROBS,
        }
        return yes_probability(self._model.chat(probe, WRITING))

    def complete(self, prompt: str, max_tokens: int = 8) -> str:
        """Optional contract method: a raw completion (used e.g. as a G-Eval judge)."""
        self.warm_up()
        request = {"prompt": prompt, "max_tokens": max_tokens, "temperature": 0.0}
        return self._model.complete(request, COMPLETING)["choices"][0]["text"]

    def _answer(self, question: str, evidence: list, text: str) -> Answer:
        return Answer(
            question, text.strip() or "(the model returned no answer)", [ev.citation for ev in evidence], self.name
        )

    def _request(self, question: str, evidence: list) -> dict:
        body = {"max_tokens": self.config.max_tokens, "temperature": self.config.temperature}
        if self.chat:
            return {
                **body,
                "messages": [
                    {"role": "system", "content": SYSTEM},
                    {"role": "user", "content": self._fit(question, evidence, moments_prompt)},
                ],
            }
        return {**body, "prompt": self._fit(question, evidence, completion_prompt), "stop": _STOP}

    def _fit(self, question: str, evidence: list, make) -> str:
        """The prompt `make` writes, with transcripts shortened until it fits the context window."""
        budget = (self.n_ctx - self.config.max_tokens - 64) * CHARS_PER_TOKEN
        prompt = make(question, evidence)
        while len(prompt) > budget and any(len(e.segments) > 1 for e in evidence):
            longest = max(evidence, key=lambda e: len(e.transcript))
            longest.segments = longest.segments[:-1]
            prompt = make(question, evidence)
        return prompt


def moments_prompt(question: str, evidence: list) -> str:
    """The numbered moments (video, time span, what is said and shown), then the question."""
    lines = ["Moments:"]
    for i, ev in enumerate(evidence, 1):
        cite = ev.citation
        name = cite.path.rsplit("/", 1)[-1]
        shown = f" (on screen: {ev.screen})" if ev.screen else ""
        lines.append(f"[{i}] {name} {span(cite.start, cite.end)}: {ev.transcript}{shown}")
    language = text_language(question)
    asked = [f"Question: {question}"] + ([f"Answer in {language_name(language)}."] if language != "en" else [])
    return "\n".join([*lines, "", *asked])
