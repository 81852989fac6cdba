"""Render the moment benchmark's videos (cached) and write its golden sets, without running a
benchmark (each benchmark on these videos does this first).

    python -m tools.build_moments [--videos DIR] [--out DIR] [--only SLUG,...]
"""
from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.moments.build import OUT, build


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--videos", type=Path, default=OUT / "videos", help="rendered videos (cache)")
    parser.add_argument("--out", type=Path, default=OUT, help="where dev.jsonl and test.jsonl go")
    parser.add_argument("--only", default=None, help="comma-separated slugs (default: all)")
    args = parser.parse_args()
    paths = build(args.videos, args.out, set(args.only.split(",")) if args.only else None)
    for split, path in paths.items():
        print(f"{split}: {sum(1 for _ in path.open())} questions -> {path}")


if __name__ == "__main__":
    main()
