"""Fine-tune a sentence-transformers text encoder on grouped (question, unit) pairs, with torch.

Each batch holds several groups (videos) with several pairs each; questions and units are
encoded by the model's own forward pass, L2-normalised, and scored with GCL (or the SCL baseline).
The result is saved as a sentence-transformers folder, usable as `--embed-model FOLDER`.
"""

from __future__ import annotations

import itertools
import logging
import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ConfigError
from .data import Group, Pair, batches, group_pairs

log = logging.getLogger(__name__)
LOSSES = ("gcl", "scl")


@dataclass
class TrainConfig:
    epochs: int = 1
    batch_size: int = 32  # (question, unit) pairs per batch
    pairs_per_group: int = 4  # pairs of one group (video) in a batch
    lr: float = 2e-5
    temperature: float = 0.05
    max_steps: int | None = None  # stop after this many optimiser steps (None = all epochs)
    seed: int = 0
    loss: str = "gcl"  # gcl | scl (the baseline: same-video pairs count as negatives)
    max_seq_length: int | None = 128  # word pieces per text while training (None = the model's)
    device: str | None = None

    def __post_init__(self) -> None:
        if self.loss not in LOSSES:
            raise ConfigError(f"`loss` must be one of {', '.join(LOSSES)}, got {self.loss!r}")
        if min(self.epochs, self.pairs_per_group) < 1 or self.lr <= 0 or self.temperature <= 0:
            raise ConfigError(
                f"need epochs, pairs_per_group >= 1 and lr, temperature > 0, got {self.epochs}, "
                f"{self.pairs_per_group}, {self.lr}, {self.temperature}"
            )
        if self.batch_size < 2 * self.pairs_per_group:
            raise ConfigError(
                f"`batch_size` ({self.batch_size}) must hold at least two groups of "
                f"`pairs_per_group` ({self.pairs_per_group}) pairs",
                "raise --batch-size",
            )
        if self.max_steps is not None and self.max_steps < 1:
            raise ConfigError(f"`max_steps` must be >= 1 or None, got {self.max_steps!r}")


@dataclass
class TrainReport:
    steps: int = 0
    losses: list[float] = field(default_factory=list)
    seconds: float = 0.0
    groups: int = 0
    pairs: int = 0
    out: str | None = None
    held_out_before: dict | None = None  # group_similarity on held-out pairs, before / after
    held_out_after: dict | None = None


def load_model(base_model: str | None = None, device: str | None = None):
    """A SentenceTransformer from a local folder, the bundled MiniLM (None) or a hub id."""
    from ..models import MINILM_L6, resolve

    path, _ = resolve(base_model, MINILM_L6)
    if os.path.exists(path):  # a local model: never reach for the hub
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from ..registry import require

    return require("sentence_transformers", "sentence-transformers").SentenceTransformer(path, device=device)


def encode(model, texts: list[str]):
    """L2-normalised embeddings through the model's forward pass, with gradients."""
    import torch.nn.functional as F

    tokenize = getattr(model, "preprocess", None) or model.tokenize  # `tokenize` before s-t 6
    features = {k: v.to(model.device) if hasattr(v, "to") else v for k, v in tokenize(texts).items()}
    return F.normalize(model(features)["sentence_embedding"], dim=-1)


def batch_loss(model, pairs: list[Pair], config: TrainConfig):
    """The batch's GCL (or SCL) loss; each distinct question and unit is encoded once per group."""
    import torch

    from .gcl import gcl_loss, scl_loss

    questions = list(dict.fromkeys((p.question, p.group) for p in pairs))
    units = list(dict.fromkeys((p.unit, p.group) for p in pairs))
    q_vectors = encode(model, [q for q, _ in questions])
    u_vectors = encode(model, [u for u, _ in units])
    if config.loss == "scl":
        q_row = {q: i for i, q in enumerate(questions)}
        u_col = {u: i for i, u in enumerate(units)}
        rows = torch.tensor([q_row[(p.question, p.group)] for p in pairs], device=q_vectors.device)
        targets = torch.tensor([u_col[(p.unit, p.group)] for p in pairs], device=q_vectors.device)
        return scl_loss(q_vectors[rows], u_vectors, targets, config.temperature)
    names = {g: i for i, g in enumerate(dict.fromkeys(p.group for p in pairs))}
    q_groups = torch.tensor([names[g] for _, g in questions], device=q_vectors.device)
    u_groups = torch.tensor([names[g] for _, g in units], device=q_vectors.device)
    return gcl_loss(q_vectors, u_vectors, q_groups, u_groups, config.temperature)


def _batches(groups: list[Group], config: TrainConfig) -> Iterator[list[Pair]]:
    """Every epoch's batches in a row, cut at `max_steps`."""
    rng = random.Random(config.seed)
    per_batch = max(2, config.batch_size // config.pairs_per_group)
    epochs = (b for _ in range(config.epochs) for b in batches(groups, per_batch, config.pairs_per_group, rng))
    return itertools.islice(epochs, config.max_steps)


def train(model, groups: list[Group], config: TrainConfig, show_progress: bool = False) -> TrainReport:
    """Optimise `model` in place on `groups`; returns the per-step losses."""
    import torch
    from tqdm.auto import tqdm

    torch.manual_seed(config.seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    report = TrainReport(groups=len(groups), pairs=sum(len(g.pairs) for g in groups))
    start, saved_length = time.perf_counter(), model.max_seq_length
    model.max_seq_length = config.max_seq_length or saved_length  # shorter while training only
    model.train()
    try:
        for pairs in tqdm(
            _batches(groups, config),
            total=config.max_steps,
            disable=not show_progress,
            desc=f"{config.loss} fine-tuning",
        ):
            loss = batch_loss(model, pairs, config)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            report.losses.append(float(loss.detach()))
    finally:
        model.eval()
        model.max_seq_length = saved_length
    report.steps, report.seconds = len(report.losses), time.perf_counter() - start
    log.info("%s: %d steps in %.0f s", config.loss, report.steps, report.seconds)
    return report


def group_similarity(model, groups: list[Group], max_groups: int = 64, seed: int = 0) -> dict:
    """Mean cosine of questions to units of their own group ("within") and of other groups
    ("between"), over up to `max_groups` groups; "margin" = within − between."""
    picked = random.Random(seed).sample(groups, min(max_groups, len(groups)))
    questions = list(dict.fromkeys((p.question, g.name) for g in picked for p in g.pairs))
    units = list(dict.fromkeys((p.unit, g.name) for g in picked for p in g.pairs))
    q = model.encode([t for t, _ in questions], normalize_embeddings=True, convert_to_numpy=True)
    u = model.encode([t for t, _ in units], normalize_embeddings=True, convert_to_numpy=True)
    similarity = q @ u.T
    same = np.array([g for _, g in questions])[:, None] == np.array([g for _, g in units])[None, :]
    within = float(similarity[same].mean())
    between = float(similarity[~same].mean()) if (~same).any() else float("nan")
    return {"within": within, "between": between, "margin": within - between}


def finetune(
    pairs: list[Pair],
    out: str | Path,
    base_model: str | None = None,
    config: TrainConfig | None = None,
    held_out: list[Pair] | None = None,
    show_progress: bool = False,
) -> TrainReport:
    """One call: load the base model, fine-tune it on `pairs`, save it to `out`. With `held_out`
    pairs, the report carries their within/between-group similarity before and after."""
    config = config or TrainConfig()
    groups = group_pairs(pairs)
    if len(groups) < 2:
        raise ConfigError(
            f"contrastive fine-tuning needs pairs of at least two videos, got {len(groups)}",
            "add golden queries about other videos",
        )
    model = load_model(base_model, config.device)
    held = group_pairs(held_out) if held_out else []
    before = group_similarity(model, held) if held else None
    report = train(model, groups, config, show_progress)
    if not report.steps:
        raise ConfigError(
            "no batch could hold two videos that do not share a question", "add golden queries about other videos"
        )
    report.held_out_before = before
    report.held_out_after = group_similarity(model, held) if held else None
    Path(out).mkdir(parents=True, exist_ok=True)
    model.save(str(out))
    report.out = str(out)
    return report
