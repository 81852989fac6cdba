"""e5's cosines mapped onto MiniLM's scale (`videorag.embed.e5.SCALE`, `SHIFT`): English WikiHowQA
questions against pieces of HowTo100M transcripts (../shared/bench/howto100m-wikihow), each pair
embedded by both models; a line fitted through the two score distributions' quantiles from the
median to the 99.9th percentile (where rankings and thresholds are decided), least squares. Held
out: the fit on half the questions, its error on the other half."""
from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import numpy as np

from videorag.config import EmbedConfig
from videorag.embed import create_embedder, embed_queries
from videorag.embed.e5 import E5Model

DATA = Path(__file__).resolve().parents[3] / "shared" / "bench" / "howto100m-wikihow"
QUANTILES = np.linspace(0.5, 0.999, 60)


def pairs(questions: int = 200, passages: int = 1500, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    qa = json.loads((DATA / "wikihow_qa.json").read_text())
    asked = [q["wikihow_query_text"] for q in rng.sample(qa, questions)]
    with gzip.open(DATA / "transcripts.jsonl.gz", "rt") as f:
        texts = [json.loads(line)["text"].split() for line in f]
    pieces = []
    for words in rng.sample([t for t in texts if len(t) > 60], passages):
        at = rng.randrange(0, max(1, len(words) - 60))
        pieces.append(" ".join(words[at : at + 60]))
    return asked, pieces


def line(minilm: np.ndarray, e5: np.ndarray) -> tuple[float, float]:
    x, y = np.quantile(e5, QUANTILES), np.quantile(minilm, QUANTILES)
    scale, shift = np.polyfit(x, y, 1)
    return float(scale), float(shift)


def fit() -> dict:
    asked, pieces = pairs()
    minilm = create_embedder(EmbedConfig())
    e5 = E5Model()
    m = embed_queries(minilm, asked) @ minilm.embed(pieces).T
    e = e5.embed_queries(asked) @ e5.embed(pieces).T
    half = len(asked) // 2
    scale, shift = line(m.ravel(), e.ravel())
    held_scale, held_shift = line(m[:half].ravel(), e[:half].ravel())
    out = held_scale * np.quantile(e[half:], QUANTILES) + held_shift
    error = float(np.abs(out - np.quantile(m[half:], QUANTILES)).max())
    print(f"SCALE, SHIFT = {scale:.3f}, {shift:.3f}   (held out: fitted on half, max quantile error {error:.3f})")
    top = [float(np.mean(np.sort(row)[-3:])) for row in m], [float(np.mean(np.sort(row)[-3:])) for row in e]
    return {"scale": round(scale, 4), "shift": round(shift, 4), "held_out_max_quantile_error": round(error, 4),
            "questions": len(asked), "passages": len(pieces),
            "mean_top3": {"minilm": round(float(np.mean(top[0])), 3), "e5": round(float(np.mean(top[1])), 3)}}
