"""`videorag ARGV...`: parse, build the config, run the subcommand; domain errors in one line."""

from __future__ import annotations

import logging
import os
import sys

from ..console import EXIT_ERROR, say
from ..errors import VideoRAGError
from ..names import printable
from ..options import make_config
from .commands import ON_INDEX, cmd_demo, cmd_models
from .handoff import CARRIED, answered_by_server
from .parser import build_parser


def setup_logging(verbose: bool, stages: bool = False) -> None:
    """Warnings (with `verbose`, every record) on stderr as "LEVEL name: message"; with `stages`,
    the records of long steps (logged with `extra={"stage": True}`: a model loading, the judge
    judging, the answer being written) as plain lines. Replaces what an earlier call set up."""
    log = logging.getLogger("videorag")
    for old in [h for h in log.handlers if getattr(h, "videorag_cli", False)]:
        log.removeHandler(old)
    shown = logging.StreamHandler()
    shown.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    shown.setLevel(logging.INFO if verbose else logging.WARNING)
    handlers = [shown]
    if stages:
        lines = logging.StreamHandler()  # the message alone
        lines.addFilter(_stage)
        shown.addFilter(lambda record: not _stage(record))
        handlers.append(lines)
    for handler in handlers:
        handler.videorag_cli = True  # type: ignore[attr-defined]  # our mark, found again by getattr above
        log.addHandler(handler)
    log.setLevel(logging.INFO if verbose or stages else logging.WARNING)
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")  # model libraries: no chatter
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


def _stage(record: logging.LogRecord) -> bool:
    return getattr(record, "stage", False)


def run(args) -> int:
    """The parsed command's exit status (domain errors raised)."""
    if args.command == "demo":
        return cmd_demo(args)
    if args.command == "models":
        return cmd_models(args)
    if args.command == "eval":
        from ..eval.dispatch import run as run_eval

        return run_eval(args, make_config(args))
    if args.command == "finetune":
        from ..finetune.cli import run as run_finetune

        return run_finetune(args, make_config(args))
    from ..where import REMEMBERED, default_index, forgotten

    if args.index is None:
        args.index, args.index_chosen_by = default_index(writing=args.command == "index")
        if args.index_chosen_by.startswith(REMEMBERED):  # not named here: say which, lest it change unseen
            say(f"using index {args.index} (the one built last; --index to choose)")
        elif args.command != "index" and not os.path.exists(args.index) and (gone := forgotten()):
            say(f"the index built last, {gone}, is gone (moved or deleted); --index to choose one")
    else:
        args.index_chosen_by = "--index"
    if args.command in CARRIED and (status := answered_by_server(args)) is not None:
        return status  # a running `videorag serve` of this index answered: no models loaded here
    from ..pipeline import VideoRAG

    return ON_INDEX[args.command](VideoRAG(args.index, make_config(args), **_made_for(args)), args)


def _made_for(args) -> dict:
    """What the command's `VideoRAG` is made with: progress for `ask` (a server says nothing per
    answer), the shards on Ray for `serve --ray`."""
    from ..options import serve_config
    from .commands import progress_events

    if args.command == "ask":
        return {"events": progress_events()}
    if args.command == "serve" and (config := serve_config(args)).ray:
        from ..shard.serving import sharded

        return {"live": sharded(config.ray, config.shard_replicas, config.shard_deadline)}
    return {}


def main(argv: list[str] | None = None) -> int:
    """`videorag ARGV...` (the console script): its exit status."""
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # reports quote the exact command
    setup_logging(getattr(args, "verbose", False), stages=args.command in ("search", "ask"))
    try:
        return run(args)
    except VideoRAGError as exc:
        print(f"error: {printable(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("interrupted; the index stays readable and the next run finishes the job", file=sys.stderr)
        return 130
