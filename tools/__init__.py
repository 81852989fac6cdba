"""Tools beside the benchmarks that make things rather than measure them: the docs' screenshots,
the long reliability trials, the moment benchmark's videos, the specific-question set, the
WikiHowQA evaluation report. Run from the repository root: `python -m tools.NAME [options]`."""
