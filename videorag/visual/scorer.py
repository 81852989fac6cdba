"""The learned frame-subset scorer f of VideoRAG (Appendix A.3).

- retrieval (query-agnostic): choose 4 of the 8 k-means frames; f = 3-layer MLP over the
  concatenated features of the 4 frames (time order);
- generation (query-aware): choose 32 of 64 among 40 random subsets;
  f = dot(mean of MLP(frame features), MLP(query feature)).
Labels come automatically: a subset's quality is measured (similarity to the query for
retrieval, ROUGE-L of the generated answer for generation), top-3 subsets True, bottom-3 False;
training minimises binary cross-entropy.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np

from ..registry import require

SCORER_FILE = "frame_scorer.pt"


def _torch():
    return require("torch", "visual")


def _mlp(nn, sizes: list[int]):
    layers = []
    for a, b in itertools.pairwise(sizes):
        layers += [nn.Linear(a, b), nn.GELU()]
    return nn.Sequential(*layers[:-1])


def build_retrieval_net(dim: int, subset: int = 4, hidden: int = 256):
    nn = _torch().nn
    return _mlp(nn, [dim * subset, hidden, hidden, 1])


class GenerationNet:
    """f(frames, q) = mean_i MLP_f(frame_i) · MLP_q(q) — built lazily as a torch module."""

    @staticmethod
    def build(dim: int, hidden: int = 256):
        torch = _torch()
        nn = torch.nn
        module: Any = nn.Module  # torch comes through `require`: a base class known only at run time

        class Net(module):
            def __init__(self):
                super().__init__()
                self.frames = _mlp(nn, [dim, hidden, hidden])
                self.query = _mlp(nn, [dim, hidden, hidden])

            def forward(self, frames, query):  # frames (B, S, D), query (B, D)
                return (self.frames(frames).mean(dim=1) * self.query(query)).sum(-1)

        return Net()


@dataclass
class LabelledSubset:
    frames: np.ndarray  # (S, D) features of the subset, time order
    label: float  # 1 = good subset, 0 = bad
    query: np.ndarray | None = None


def top_bottom(scores: list[float], n: int = 3) -> tuple[list[int], list[int]]:
    order = np.argsort(scores, kind="stable")[::-1]
    n = min(n, len(order) // 2)
    return order[:n].tolist(), order[len(order) - n :].tolist()


def retrieval_labels(frame_feats: np.ndarray, query: np.ndarray, subset: int = 4) -> list[LabelledSubset]:
    """All `subset`-combinations of a video's (≤ 8) frames scored by cosine of their mean to the
    query; the top 3 are True, the bottom 3 False."""
    combos = list(itertools.combinations(range(len(frame_feats)), subset))
    if len(combos) < 2:
        return []
    means = np.stack([frame_feats[list(c)].mean(0) for c in combos])
    sims = (means / np.linalg.norm(means, axis=1, keepdims=True)) @ query
    good, bad = top_bottom(sims.tolist())
    return [LabelledSubset(frame_feats[list(combos[i])], 1.0) for i in good] + [
        LabelledSubset(frame_feats[list(combos[i])], 0.0) for i in bad
    ]


@dataclass
class TrainResult:
    losses: list[float] = field(default_factory=list)


def train(
    net, samples: list[LabelledSubset], epochs: int = 30, lr: float = 1e-3, batch: int = 64, seed: int = 0
) -> TrainResult:
    """Binary cross-entropy on labelled subsets; returns the mean loss of each epoch."""
    torch = _torch()
    torch.manual_seed(seed)
    frames = torch.tensor(np.stack([s.frames for s in samples]), dtype=torch.float32)
    labels = torch.tensor([s.label for s in samples], dtype=torch.float32)
    queries = (
        torch.tensor(np.stack([cast(np.ndarray, s.query) for s in samples]), dtype=torch.float32)
        if samples and samples[0].query is not None
        else None
    )  # generation samples: each has its query
    optim = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    result = TrainResult()
    net.train()
    for _ in range(epochs):
        order, total = torch.randperm(len(samples)), 0.0
        for lo in range(0, len(samples), batch):
            idx = order[lo : lo + batch]
            logits = _forward(net, frames[idx], None if queries is None else queries[idx])
            loss = loss_fn(logits, labels[idx])
            optim.zero_grad()
            loss.backward()
            optim.step()
            total += float(loss.detach()) * len(idx)
        result.losses.append(total / max(len(samples), 1))
    net.eval()
    return result


def _forward(net, frames, queries):
    if queries is None:
        return net(frames.flatten(1)).squeeze(-1)
    return net(frames, queries)


def score_subsets(
    net, frame_feats: np.ndarray, subsets: list[tuple[int, ...]], query: np.ndarray | None = None
) -> np.ndarray:
    torch = _torch()
    with torch.inference_mode():
        frames = torch.tensor(np.stack([frame_feats[list(s)] for s in subsets]), dtype=torch.float32)
        queries = None if query is None else torch.tensor(np.repeat(query[None], len(subsets), 0), dtype=torch.float32)
        return _forward(net, frames, queries).numpy()


def best_retrieval_subset(net, frame_feats: np.ndarray, subset: int = 4) -> list[int]:
    """The highest-scoring `subset` of the (≤ 8) candidate frames, by the query-agnostic f."""
    if len(frame_feats) <= subset:
        return list(range(len(frame_feats)))
    combos = list(itertools.combinations(range(len(frame_feats)), subset))
    return list(combos[int(np.argmax(score_subsets(net, frame_feats, combos)))])


def random_subsets(n: int, size: int, count: int, seed: int = 0) -> list[tuple[int, ...]]:
    rng = np.random.default_rng(seed)
    return [tuple(sorted(rng.choice(n, size=size, replace=False).tolist())) for _ in range(count)]


def best_generation_subset(
    net, frame_feats: np.ndarray, query: np.ndarray, size: int = 32, candidates: int = 40, seed: int = 0
) -> list[int]:
    """Among `candidates` random `size`-subsets, the one f(frames, query) rates highest."""
    if len(frame_feats) <= size:
        return list(range(len(frame_feats)))
    subsets = random_subsets(len(frame_feats), size, candidates, seed)
    return list(subsets[int(np.argmax(score_subsets(net, frame_feats, subsets, query)))])


# -- persistence -----------------------------------------------------------------------------------
def save(path: Path, nets: dict, meta: dict) -> None:
    torch = _torch()
    torch.save({"meta": meta, "state": {k: v.state_dict() for k, v in nets.items()}}, path)


def load(path: Path) -> tuple[dict, dict]:
    """({'retrieval': net?, 'generation': net?}, meta) from a saved scorer file."""
    torch = _torch()
    blob = torch.load(path, map_location="cpu", weights_only=False)
    meta, nets = blob["meta"], {}
    if "retrieval" in blob["state"]:
        nets["retrieval"] = build_retrieval_net(meta["dim"], meta.get("subset", 4), meta.get("hidden", 256))
        nets["retrieval"].load_state_dict(blob["state"]["retrieval"])
    if "generation" in blob["state"]:
        nets["generation"] = GenerationNet.build(meta["dim"], meta.get("hidden", 256))
        nets["generation"].load_state_dict(blob["state"]["generation"])
    for net in nets.values():
        net.eval()
    return nets, meta


def append_labels(path: Path, rows: list[dict]) -> None:
    """Generation labels are costly: they are appended as they come, so a run can resume."""
    with path.open("a", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
