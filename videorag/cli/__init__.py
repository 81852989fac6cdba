"""The `videorag` command line. Exit status: 0 ok, 1 error, 2 usage, 3 partial (some files failed).

`parser` declares the subcommands, `commands` runs them, `app` ties both (`main`). What other
command lines share with this one lives outside this package, in `videorag.console` (exit
statuses, the parser, printing) and `videorag.options` (the options that set config fields)."""

from __future__ import annotations

from ..console import EXIT_ERROR, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE
from .app import main

__all__ = ["EXIT_ERROR", "EXIT_OK", "EXIT_PARTIAL", "EXIT_USAGE", "main"]
