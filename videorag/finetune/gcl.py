"""Contrastive losses over question and unit embeddings whose group label is their video.

GCL, Grouped-supervised Contrastive Learning (RAG-Adapter §3.3): every (question, unit) pair of
the same group is positive, pairs across groups are negative, and for each anchor positive the
*other* positives are left out of the denominator; the loss is averaged over all positive pairs:

    L = mean over (i, p ∈ P(i)) of  −log  exp(s_ip / τ) / Σ_{a ∈ A(i) ∖ (P(i) ∖ {p})} exp(s_ia / τ)

with s the cosine similarity of question i and unit a (rows are expected L2-normalised).

For comparison only:
- `supcon_loss`: supervised contrastive loss that keeps all positives in the denominator, so the
  positives of one question compete with each other;
- `scl_loss`: the paper's SCL baseline, plain in-batch contrastive learning over aligned pairs,
  where every other unit of the batch is a negative, same-video ones included.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def _positives(query_groups: torch.Tensor, unit_groups: torch.Tensor) -> torch.Tensor:
    positive = query_groups[:, None] == unit_groups[None, :]
    if not positive.any():
        raise ValueError("no (question, unit) pair shares a group: nothing to pull together")
    return positive


def gcl_pair_losses(
    queries: torch.Tensor,
    units: torch.Tensor,
    query_groups: torch.Tensor,
    unit_groups: torch.Tensor,
    temperature: float = 0.05,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-pair GCL terms, (n_queries, n_units), and the boolean mask of positive pairs.

    Term (i, p) = log(exp(s_ip) + Σ_negatives exp(s_ia)) − s_ip, scaled by 1 / τ.
    """
    positive = _positives(query_groups, unit_groups)
    logits = queries @ units.T / temperature
    has_negative = (~positive).any(dim=1, keepdim=True)
    # rows without negatives: log-sum-exp over a dummy row (no NaN gradients), then −inf
    negatives = logits.masked_fill(positive, float("-inf")).masked_fill(~has_negative, 0.0)
    negative_lse = torch.where(
        has_negative, torch.logsumexp(negatives, dim=1, keepdim=True), torch.full_like(logits[:, :1], float("-inf"))
    )
    return torch.logaddexp(logits, negative_lse) - logits, positive


def gcl_loss(
    queries: torch.Tensor,
    units: torch.Tensor,
    query_groups: torch.Tensor,
    unit_groups: torch.Tensor,
    temperature: float = 0.05,
) -> torch.Tensor:
    """GCL averaged over every positive (question, unit) pair of the batch."""
    terms, positive = gcl_pair_losses(queries, units, query_groups, unit_groups, temperature)
    return terms[positive].mean()


def supcon_loss(
    queries: torch.Tensor,
    units: torch.Tensor,
    query_groups: torch.Tensor,
    unit_groups: torch.Tensor,
    temperature: float = 0.05,
) -> torch.Tensor:
    """Supervised contrastive loss with all units in every denominator (positives included)."""
    positive = _positives(query_groups, unit_groups)
    logits = queries @ units.T / temperature
    terms = torch.logsumexp(logits, dim=1, keepdim=True) - logits
    return terms[positive].mean()


def scl_loss(
    queries: torch.Tensor, units: torch.Tensor, targets: torch.Tensor, temperature: float = 0.05
) -> torch.Tensor:
    """In-batch contrastive loss: row i of `queries` must pick unit `targets[i]` among all units."""
    return F.cross_entropy(queries @ units.T / temperature, targets)
