"""Where an ingest run is: the stage the current file is in and an estimate of the time left.

The work is measured in bytes of the files to index; inside a file, each stage stands for a fixed
share of its work (`SHARES`, rough costs on 2 cores: speech recognition dominates) and the
recogniser reports how far into the audio it is. The estimate is the elapsed time scaled by the
work left, once there is enough behind it to scale (`MIN_SECONDS`, `MIN_FRACTION`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

# share of one file's work per stage, in the order `Ingestor._build` runs them
SHARES = {
    "transcribe": 0.6,
    "embed": 0.1,
    "decode": 0.1,
    "visual": 0.05,
    "caption": 0.1,
    "write": 0.05,
}
BEFORE = {
    name: sum(list(SHARES.values())[:i]) for i, name in enumerate(SHARES)
}  # a file's share done on entering a stage
MIN_SECONDS, MIN_FRACTION = 2.0, 0.01

Stages = Callable[[str, str, "float | None"], None]  # (current file, stage, seconds left or None)


class Tracker:
    """Follows one run's files through their stages; calls `report` on every change."""

    def __init__(self, paths: list[Path], report: Stages):
        self.sizes = {str(p): _size(p) for p in paths}
        self.total = float(sum(self.sizes.values())) or 1.0
        self.report = report
        self.done = 0.0
        self.going: dict[str, float] = {}  # work done in the files being built (several at once)
        self.lock = threading.Lock()  # stages are reported from the engine's threads
        self.started = time.monotonic()

    def stage(self, path: Path | str, name: str, within: float = 0.0, shown: str | None = None) -> None:
        """`path` is in stage `name` (a key of SHARES; reported as `shown`, e.g. the captioner's
        name "ocr"), `within` (0–1) of the way through it."""
        file_fraction = min(1.0, BEFORE[name] + SHARES[name] * min(max(within, 0.0), 1.0))
        with self.lock:
            self.going[str(path)] = file_fraction * self.sizes.get(str(path), 0)
            done = self.done + sum(self.going.values())
        self.report(str(path), shown or name, self.eta(done))

    def finished(self, path: Path | str) -> None:
        with self.lock:
            self.going.pop(str(path), None)
            self.done += self.sizes.get(str(path), 0)

    def eta(self, done: float) -> float | None:
        elapsed, fraction = time.monotonic() - self.started, done / self.total
        if elapsed < MIN_SECONDS or fraction < MIN_FRACTION:
            return None
        return elapsed * (1 - fraction) / fraction


def stage_text(current: str, stage: str, left: float | None, width: int | None = None) -> str:
    """'tea.mp4 · transcribe · under a minute left': the file's name (its last `width`
    characters), its stage and the time left when there is an estimate."""
    name = Path(current).name
    return " · ".join(x for x in (name[-width:] if width else name, stage, eta_text(left)) if x)


def stage_lines(write: Callable[[str], None]) -> Stages:
    """A stage report as plain lines (where no bar can show): one line per file and stage, not
    one per tick of a stage's progress. Files built at once (`streams` threads) report in turns:
    each file's stage is remembered, not only the last line's."""
    stages: dict[str, str] = {}  # each file's stage last written
    lock = threading.Lock()  # reports come from the engine's threads

    def report(current: str, stage: str, left: float | None) -> None:
        with lock:
            if stages.get(current) != stage:
                stages[current] = stage
                write(stage_text(current, stage, left))

    return report


def eta_text(seconds: float | None) -> str:
    """'about 3 min left', '' when there is no estimate yet."""
    if seconds is None:
        return ""
    if seconds < 60:
        return "under a minute left"
    return f"about {round(seconds / 60)} min left" if seconds < 5400 else f"about {seconds / 3600:.1f} h left"


def _size(path: Path) -> int:
    try:
        return Path(path).stat().st_size
    except OSError:
        return 0
