"""Evaluation harness: datasets, metrics, methods, reports (`videorag eval`). Its names load on
first use (`videorag --help` builds the eval parser without importing the runner)."""

from __future__ import annotations

import importlib

_HOMES = {
    "EvalItem": "datasets",
    "load_golden_jsonl": "datasets",
    "load_transcripts": "datasets",
    "load_triplets": "datasets",
    "load_wikihow_qa": "datasets",
    "Score": "metrics",
    "bleu4": "metrics",
    "retrieval_scores": "metrics",
    "rouge_l": "metrics",
    "evaluate_generation": "runner",
    "evaluate_retrieval": "runner",
    "score_predictions": "runner",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
