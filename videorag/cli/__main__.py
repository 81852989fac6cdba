"""`python -m videorag.cli`: the `videorag` command."""

import sys

from .app import main

sys.exit(main())
