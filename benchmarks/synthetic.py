"""Generated how-to text and vectors for the synthetic indexes (core, methods, serve, scale), and
the latency figures the benchmarks report."""
from __future__ import annotations

import random
import time
from typing import Callable, Iterable

import numpy as np

TOPICS = ["bread", "bicycle", "garden", "guitar", "kitchen sink", "laptop", "car battery", "tile floor",
          "sourdough", "watercolor", "fence", "aquarium", "knife", "sweater", "drywall", "espresso"]
VERBS = ["clean", "check", "tighten", "measure", "cut", "mix", "sand", "rinse", "attach", "remove",
         "heat", "fold", "press", "replace", "adjust", "paint", "drain", "trim", "glue", "test"]
THINGS = ["the handle", "two screws", "the seal", "a thin layer", "the edges", "the filter", "the valve",
          "the dough", "the cable", "the hinge", "the strings", "the grout", "the blade", "the lid"]
EXTRAS = ["until it feels firm", "for about ten minutes", "with a soft cloth", "at low speed",
          "so nothing leaks later", "before moving on", "very carefully", "using both hands"]


def sentence(rng: random.Random, topic: str) -> str:
    """One narrated step about `topic`."""
    return (f"Now {rng.choice(VERBS)} {rng.choice(THINGS)} of the {topic} "
            f"{rng.choice(EXTRAS)}, then {rng.choice(VERBS)} {rng.choice(THINGS)}.")


def question(rng: random.Random) -> str:
    """A user's query about some topic's step."""
    return f"how do I {rng.choice(VERBS)} {rng.choice(THINGS)} on a {rng.choice(TOPICS)}"


def unit(x: np.ndarray) -> np.ndarray:
    """Rows (or a vector) scaled to length 1."""
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def times_ms(fn: Callable, inputs: Iterable) -> list[float]:
    """Milliseconds of `fn(x)` for each input."""
    times = []
    for x in inputs:
        start = time.perf_counter()
        fn(x)
        times.append((time.perf_counter() - start) * 1000)
    return times


def percentiles(times: list[float], qs: Iterable[int] = (50, 95), digits: int = 2, suffix: str = "_ms") -> dict:
    """{"p50_ms": …, "p95_ms": …} of `times`, rounded."""
    return {f"p{q}{suffix}": round(float(np.percentile(times, q)), digits) for q in qs}
