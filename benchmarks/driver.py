"""The one driver of every benchmark: the command line, the common options, the config overrides
and the results files.

A benchmark is a function `fn(run: Run) -> dict | None`, or a dict of parts `{name: fn}` run in
order (`--skip` leaves a part's earlier figures in place). Its module may add its own options
with `options(parser)`. What it returns is printed (when short) and written to OUT/NAME.json —
`NAME-LABEL` where the benchmark sets `run.label`, `-HASH` of the settings with `--set`, gzipped
(`.json.gz`) when large. `--set SECTION.FIELD=VALUE` items are `videorag.config.apply_overrides`'
(values read as JSON when they parse, else as text; an unknown field named with the fields there).
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from videorag.config import Config, apply_overrides
from videorag.errors import ConfigError

from .registry import BENCHES, QUICK, REGISTRY, Bench

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench-results"
LARGE = 256 * 1024     # characters of JSON above which results are written gzipped
SHORT = 4000           # characters of JSON up to which results are printed


@dataclass
class Run:
    """One benchmark run: its name, its parsed options (common and its own), its command line."""

    name: str
    args: argparse.Namespace
    argv: list[str]
    label: str = ""    # set by a benchmark whose results file depends on an option (e.g. judge's grid)

    @property
    def out(self) -> Path:
        return self.args.out.resolve()

    @property
    def work(self) -> Path:
        return self.args.work.resolve()

    @property
    def settings(self) -> list[str]:
        return self.args.set

    @property
    def command(self) -> str:
        """The command line that reproduces this run (with OMP_NUM_THREADS when set)."""
        threads = os.environ.get("OMP_NUM_THREADS")
        prefix = [f"OMP_NUM_THREADS={threads}"] if threads else []
        return " ".join([*prefix, "python -m benchmarks", self.name, *map(shlex.quote, self.argv)])

    def config(self, *more: str) -> Config:
        """A fresh `Config` with the run's `--set` items, then `more` (as `--set` takes them), applied."""
        return apply_overrides(Config(), [*self.settings, *more])

    @property
    def path(self) -> Path:
        """The results file without its suffix: OUT/NAME[-LABEL][-HASH of the settings]."""
        stem = "-".join(filter(None, (self.name, self.label)))
        if self.settings:
            stem += "-" + hashlib.sha1(" ".join(self.settings).encode()).hexdigest()[:10]
        return self.out / stem

    def previous(self) -> dict:
        """The figures of the last run written to the same file ({} if none)."""
        return read_results(self.path)

    def write(self, data: dict) -> Path:
        return write_results(self.path, data)


def ingest_items(items: list[str]) -> list[str]:
    """The `--set` items that change what an index holds (`ingest.*`, and the text embedder that
    builds it: `embed.backend`, `embed.model`): they name an index of their own (an index refuses
    another embedder's vectors, so `--set embed.model=…` on a cached index would fail)."""
    return [item for item in items if item.startswith(("ingest.", "embed.backend=", "embed.model="))]


def write_results(stem: Path, data: dict) -> Path:
    """STEM.json, or STEM.json.gz when large (the other one removed: one file holds the figures)."""
    text = json.dumps(data, indent=1) + "\n"
    plain, zipped = stem.with_name(stem.name + ".json"), stem.with_name(stem.name + ".json.gz")
    path, stale = (zipped, plain) if len(text) > LARGE else (plain, zipped)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(text.encode()) if path is zipped else text.encode())
    stale.unlink(missing_ok=True)
    return path


def read_results(stem: Path) -> dict:
    """What `write_results(stem, …)` wrote ({} if nothing)."""
    for path in (stem.with_name(stem.name + ".json"), stem.with_name(stem.name + ".json.gz")):
        if path.is_file():
            data = path.read_bytes()
            return json.loads(gzip.decompress(data) if path.name.endswith(".gz") else data)
    return {}


def run_parts(run: Run, parts: dict, **head) -> dict:
    """Each part not in `--skip`, in order, printed as it ends; merged into the previous figures."""
    skip = set(filter(None, run.args.skip.split(",")))
    unknown = skip - set(parts)
    if unknown:
        raise SystemExit(f"--skip: no part {', '.join(sorted(unknown))}; the parts: {', '.join(parts)}")
    results = {**run.previous(), **head}
    for name, fn in parts.items():
        if name not in skip:
            results[name] = fn(run)
            print(name, json.dumps(results[name]), flush=True)
    return results


def write_report(path: Path, text: str, notes: str) -> None:
    """`text` into the Markdown file `path`, keeping its hand-written part (from the heading `notes` on)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = path.read_text().partition(notes)[2] if path.exists() else ""
    path.write_text(text + (f"\n{notes}{kept}" if kept else ""))


def revision() -> str:
    """The code measured: the commit, marked -dirty when the tree has uncommitted changes."""
    try:
        return subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def parser_for(bench: Bench, module) -> argparse.ArgumentParser:
    """The common options, `--skip` for a benchmark in parts, then the benchmark's own."""
    parser = argparse.ArgumentParser(prog=f"python -m benchmarks {bench.name}", description=module.__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=OUT, help="where the results go (default: bench-results/)")
    parser.add_argument("--work", type=Path, default=OUT,
                        help="caches reused between runs: rendered videos, built indexes (default: bench-results/)")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.FIELD=VALUE",
                        help="a videorag Config override, e.g. search.judge.candidates=4 (repeatable; "
                             "ingest.* settings get an index of their own)")
    if hasattr(module, "PARTS"):
        parser.add_argument("--skip", default="", help=f"comma-separated parts to skip: {', '.join(module.PARTS)}")
    if hasattr(module, "options"):
        module.options(parser)
    return parser


def run_bench(bench: Bench, argv: list[str]) -> None:
    """Parse `argv` for `bench`, run it, print and write what it returns."""
    module, target = bench.load()
    parser = parser_for(bench, module)
    args = parser.parse_args(argv)
    try:
        apply_overrides(Config(), args.set)
    except ConfigError as error:
        parser.error(str(error))
    run = Run(bench.name, args, argv)
    result = run_parts(run, target) if isinstance(target, dict) else target(run)
    if result is not None:
        text = json.dumps(result, indent=1)
        if len(text) <= SHORT and not hasattr(module, "PARTS"):   # parts are printed as they end
            print(text)
        print(f"wrote {run.write(result)}", flush=True)


def listing() -> str:
    """How to call the entry, and every benchmark with its line (the quick ones marked)."""
    width = max(len(b.name) for b in BENCHES)
    lines = [f"  {b.name:<{width}}  {'quick ' if b.quick else '      '}{b.about}" for b in BENCHES]
    return "\n".join(["usage: python -m benchmarks NAME [--out DIR] [--work DIR] [--set KEY=VALUE ...] [options]",
                      "       python -m benchmarks quick [common options]   (the quick set: make bench)",
                      "       python -m benchmarks NAME --help              (its own options)", "", "benchmarks:",
                      *lines])


def main(argv: list[str]) -> int:
    """`python -m benchmarks [list | quick | NAME] [options]`; the exit status."""
    if not argv or argv[0] in ("list", "-h", "--help"):
        print(listing())
        return 0
    name, rest = argv[0], argv[1:]
    if name == "quick":
        for bench in QUICK:
            run_bench(bench, rest)
        return 0
    if name not in REGISTRY:
        print(f"no benchmark {name!r}\n\n{listing()}", file=sys.stderr)
        return 2
    run_bench(REGISTRY[name], rest)
    return 0
