"""`videorag demo`: render the sample corpus, index it, answer questions with citations."""

from __future__ import annotations

import sys
from pathlib import Path

from ..config import Config
from ..console import EXIT_OK, EXIT_PARTIAL, print_answer
from .corpus import QUESTIONS, SAMPLES
from .render import render


def make_corpus(folder: Path, show: bool = True) -> list[Path]:
    """Render the sample videos into `folder` (kept between runs)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for howto in SAMPLES:
        path = folder / f"{howto.slug}.mp4"
        if not path.exists():
            if show:
                print(f"rendering {path}", file=sys.stderr)
            tmp = path.with_name(path.stem + ".part.mp4")
            render(howto, tmp)
            tmp.rename(path)
        paths.append(path)
    return paths


def run_demo(folder: Path, config: Config) -> int:
    from ..pipeline import VideoRAG
    from ..where import remember

    make_corpus(folder / "videos")
    rag = VideoRAG(folder / "index", config)
    report = rag.add([folder / "videos"])
    _say(f"indexed: {report.summary()} -> {rag.location}\nanswering {len(QUESTIONS)} questions about them:\n")
    for question in QUESTIONS:
        print(f"Q: {question}")
        print_answer(rag.ask(question))
        print()
    remember(str(rag.location))
    _say(
        f'Try it yourself: videorag search "how do I patch a tube" [--judge]\n'
        f"or in a browser: videorag serve  then open http://127.0.0.1:8000\n"
        f"(commands without --index now use {rag.location}; `videorag info` says which index and why)" + _faster()
    )
    return EXIT_PARTIAL if report.partial else EXIT_OK


def _faster() -> str:
    """A line on a faster build of llama.cpp for this CPU, where there is one to make."""
    from ..llm.gguf import native_hint

    hint = native_hint()
    return f"\nfaster answers on this machine: {hint}" if hint else ""


def _say(text: str) -> None:
    """`text` on stderr after everything printed on stdout so far: piped, stdout is written in
    blocks, and the hint came before the answers it follows."""
    sys.stdout.flush()
    print(text, file=sys.stderr, flush=True)
