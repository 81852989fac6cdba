"""`videorag demo`'s own words: how many questions it answers, and its hint after the answers, as a
pipe shows them (stdout written in blocks, stderr at once). The pipeline is a double here: the
demo's printing is under test, not its answers (those are the README's, tests/test_readme_answers.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from videorag.demo.corpus import QUESTIONS

DEMO = """
import sys
from pathlib import Path

import videorag.demo as demo
import videorag.pipeline as pipeline
from videorag.types import Answer, IngestReport


class Answering:
    def __init__(self, location, config):
        self.location = location

    def add(self, paths):
        return IngestReport()

    def ask(self, question):
        return Answer(question, "an answer", [], "double")


import videorag.llm.gguf as gguf

demo.make_corpus = lambda folder, show=True: []
pipeline.VideoRAG = Answering
gguf._wheel = lambda: "Tag: cp310-abi3-manylinux_2_17_x86_64"   # the prebuilt wheel
gguf._avx512 = lambda: sys.argv[2] == "avx512"
sys.exit(demo.run_demo(Path(sys.argv[1]), None))
"""


@pytest.mark.parametrize("cpu", ["avx512", "avx2"])
def test_the_demo_counts_its_questions_and_hints_after_the_answers(tmp_path, cpu):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # stdout in blocks, as piped
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    shown = subprocess.run(
        [sys.executable, "-c", DEMO, str(tmp_path / "demo"), cpu],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        timeout=120,
        cwd=Path(__file__).parents[1],
    )
    assert shown.returncode == 0, shown.stdout
    lines = shown.stdout.splitlines()
    asked = [i for i, line in enumerate(lines) if line.startswith("Q: ")]
    assert len(asked) == len(QUESTIONS) == 4
    assert lines[1] == f"answering {len(QUESTIONS)} questions about them:" and lines[0].startswith("indexed: ")
    hint = next(i for i, line in enumerate(lines) if line.startswith("Try it yourself"))
    assert hint > asked[-1]
    faster = [line for line in lines if line.startswith("faster answers on this machine: `make native`")]
    assert len(faster) == (cpu == "avx512") and (not faster or lines[-1] == faster[0])   # only where it pays
