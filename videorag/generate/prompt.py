"""Prompt text shared by the model-backed generators."""

from __future__ import annotations

from ..types import span

INSTRUCTION = "You answer questions about how-to videos. Use only the videos given. Answer in a few sentences."


def transcript_text(number: int, evidence) -> str:
    """The t_i of the paper's [V1, t1, …, Vk, tk, q]: a video's transcript excerpt, labelled."""
    cite = evidence.citation
    shown = f" (on screen: {evidence.screen})" if evidence.screen else ""
    return f"Transcript of video {number} ({span(cite.start, cite.end)}): {evidence.transcript}{shown}"


def frames_text(number: int, evidence) -> str:
    """The label after a visual view's frames (CARVE: the chunk is shown as frames, not text)."""
    cite = evidence.citation
    return f"Frames above: video {number} ({span(cite.start, cite.end)})."


def completion_prompt(question: str, evidence: list) -> str:
    """A plain completion prompt for base (non-chat) language models."""
    parts = [INSTRUCTION, ""]
    parts += [transcript_text(i, ev) for i, ev in enumerate(evidence, 1)]
    parts += ["", f"Question: {question}", "Answer:"]
    return "\n".join(parts)
