"""What every videorag command line shares (`videorag.cli`, its `eval`, `finetune` and `demo`):
exit statuses, the parser, argument types and printing. Imports no subcommand."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from .names import printable
from .types import flag_words, span

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_PARTIAL = 0, 1, 2, 3


class Formatter(argparse.HelpFormatter):
    """Help where an option that sets a config field shows that field's default in place of
    `{default}`, read from its dataclass only when help is printed."""

    def _get_help_string(self, action: argparse.Action) -> str:
        shown = getattr(action, "shown_default", None)
        assert action.help is not None, "help is formatted for options with help only"
        return action.help if shown is None else action.help.replace("{default}", shown())


class Parser(argparse.ArgumentParser):
    """argparse with usage errors on one line, in words, and where to look for help (every
    subcommand's parser is one too)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (a zero or negative count is a usage error, not a default)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {value}")
    return value


def names(text: str) -> tuple[str, ...]:
    """argparse type: comma-separated names ("a, b" -> ("a", "b"))."""
    return tuple(name.strip() for name in text.split(","))


def print_json(obj) -> None:
    print(json.dumps(obj, ensure_ascii=False))


def bar_fits(stream=None) -> bool:
    """Whether `stream` (default stderr) can show a progress bar: a terminal that reports its
    width (a pipe is none; some IDE terminals report 0×0 columns)."""
    stream = stream or sys.stderr
    try:
        return stream.isatty() and os.get_terminal_size(stream.fileno()).columns > 0
    except (AttributeError, OSError, ValueError):  # no descriptor (a captured stream), or a closed one
        return False


def say(line: str) -> None:
    """One report line on stderr, escaped (a newline or stray bytes in a file name stay one line)."""
    print(printable(line), file=sys.stderr)


def print_hits(hits) -> None:
    """Search results, best first: file, moment, score (marked when weak) and what is said."""
    for rank, hit in enumerate(hits, 1):
        weak = "  (weak match: may not be about your query)" if hit.weak else ""
        print(f"{rank}. {hit.path}  [{span(hit.start, hit.end)}]  score {hit.score:.3f}{weak}\n   {hit.text}")


def print_answer(answer) -> None:
    """An answer, its numbered citations, the claims its moments do not support, its judge."""
    print(answer.answer)
    for n, c in enumerate(answer.citations, 1):
        print(f"  [{n}] {Path(c.path).name} {span(c.start, c.end)}  {c.path}")
    for claim in answer.claims:
        if claim.supported is False:
            print(f"  unsupported: {flag_words(claim.flag)} (support {claim.support:.2f}): {claim.text}")
    if answer.judge:
        print(f"  (moments chosen by the judge {answer.judge})")
    if answer.abstained and answer.answerable is not None:
        print(f"  (P(the best moments answer it) {answer.answerable:.2f}; `--abstain-below 0` answers anyway)")
