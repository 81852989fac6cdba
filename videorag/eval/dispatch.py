"""Runs a parsed `videorag eval ...` command: its handler in `videorag.eval.commands`, then its
result as one JSON object with `--json`."""

from __future__ import annotations

import json

from ..console import EXIT_OK


def run(args, config) -> int:
    """The exit status of `eval <args.eval_command>` under `config`."""
    from . import commands

    handler = getattr(commands, "cmd_" + args.eval_command.replace("-", "_"))
    result = handler(args, config)
    if args.json:
        print(json.dumps(strip(result)))
    return EXIT_OK


def strip(result):
    """The printed JSON: everything but per-item rows (those go to the report folder)."""
    if isinstance(result, list):
        return [strip(r) for r in result]
    if isinstance(result, dict):
        return {k: strip(v) for k, v in result.items() if k != "per_item"}
    return result
