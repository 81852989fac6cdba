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
from .parser import build_parser


def setup_logging(verbose: bool) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logging.getLogger("videorag").addHandler(handler)
    logging.getLogger("videorag").setLevel(logging.INFO if verbose else logging.WARNING)
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")  # model libraries: no chatter
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


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
    from ..pipeline import VideoRAG
    from ..where import REMEMBERED, default_index

    if args.index is None:
        args.index, args.index_chosen_by = default_index(writing=args.command == "index")
        if args.index_chosen_by.startswith(REMEMBERED):   # not named here: say which, lest it change unseen
            say(f"using index {args.index} (the one built last; --index to choose)")
    else:
        args.index_chosen_by = "--index"
    return ON_INDEX[args.command](VideoRAG(args.index, make_config(args)), args)


def main(argv: list[str] | None = None) -> int:
    """`videorag ARGV...` (the console script): its exit status."""
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # reports quote the exact command
    setup_logging(getattr(args, "verbose", False))
    try:
        return run(args)
    except VideoRAGError as exc:
        print(f"error: {printable(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("interrupted; the index stays readable and the next run finishes the job", file=sys.stderr)
        return 130
