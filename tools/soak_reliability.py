"""The long reliability trials left out of `make test`: ≥ 10 `kill -9` runs during ingest and
during remove (each followed by a re-run and the invariants check), then the fast suite.

    python -m tools.soak_reliability              # prints pytest's summary; exit 0 when all hold
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    sys.exit(subprocess.call([sys.executable, "-m", "pytest", "-q", "-m", "soak or not soak",
                              str(ROOT / "tests" / "reliability")], cwd=ROOT))
