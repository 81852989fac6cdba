"""Training data for GCL: (question, unit, group) pairs, where the group is the video id.

Two sources:
- a golden JSONL (`{"query", "relevant": [video_id], ...}`) over an index: the units are each
  relevant video's segments and chunks as stored in the index;
- the VideoRAG bench: transcripts `{video_id: text}` and WikiHowQA items: the units are ~128-word
  pieces of each relevant video's transcript, the questions the item's query and its "How To"
  phrasing.

Splits are video-disjoint: no held-out group (video) has a pair in the training set.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from dataclasses import dataclass

from ..errors import ConfigError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Pair:
    question: str
    unit: str
    group: str  # video id


@dataclass
class Group:
    name: str
    pairs: list[Pair]

    @property
    def questions(self) -> set[str]:
        return {p.question for p in self.pairs}


def group_pairs(pairs: list[Pair]) -> list[Group]:
    """Pairs gathered by group, in order of first appearance."""
    groups: dict[str, list[Pair]] = {}
    for pair in pairs:
        groups.setdefault(pair.group, []).append(pair)
    return [Group(name, members) for name, members in groups.items()]


def _questions(item) -> list[str]:
    return list(dict.fromkeys(q for q in (item.query, item.question) if q))


def index_pairs(index, items, kinds: tuple[str, ...] = ("segment", "chunk")) -> list[Pair]:
    """Pairs from golden items over a `VideoIndex`; relevant videos not in the index are skipped."""
    known, units, pairs = index.video_ids(), {}, []
    for item in items:
        for video_id in item.relevant:
            if video_id not in known:
                log.info("golden video %s is not in the index; skipped", video_id)
                continue
            if video_id not in units:
                units[video_id] = [s.text for kind in kinds for s in index.segments(video_id, kind) if s.text]
            pairs += [Pair(q, u, video_id) for q in _questions(item) for u in units[video_id]]
    if not pairs:
        raise ConfigError(
            "no golden query has a relevant video with text in this index",
            "check that the golden set's video ids are the index's (`videorag info --json`)",
        )
    return pairs


def bench_pairs(transcripts: dict[str, str], items, piece_words: int = 128, max_pieces: int = 4) -> list[Pair]:
    """Pairs from transcripts and QA items: the first `max_pieces` pieces of each relevant video."""
    from ..embed import split_words

    pairs = []
    for item in items:
        for video_id in item.relevant:
            text = transcripts.get(video_id, "")
            pieces = [p for p in split_words(text, piece_words)[:max_pieces] if p]
            pairs += [Pair(q, p, video_id) for q in _questions(item) for p in pieces]
    if not pairs:
        raise ConfigError(
            "no QA item has a relevant video with a transcript",
            "check that the QA file and the transcripts come from the same bench",
        )
    return pairs


def _held_count(n: int, fraction: float) -> int:
    if not 0.0 <= fraction < 1.0:
        raise ConfigError(f"held-out fraction must be in [0, 1), got {fraction!r}")
    return min(n - 1, max(1, round(n * fraction))) if fraction > 0 and n > 1 else 0


def split_by_group(pairs: list[Pair], held_out_fraction: float, seed: int = 0) -> tuple[list[Pair], list[Pair]]:
    """(train, held-out) pairs with disjoint groups (videos); about `held_out_fraction` of the
    groups are held out. A question may appear on both sides, its videos never."""
    names = sorted({p.group for p in pairs})
    random.Random(seed).shuffle(names)
    held = set(names[: _held_count(len(names), held_out_fraction)])
    return [p for p in pairs if p.group not in held], [p for p in pairs if p.group in held]


def split_queries(items: list, held_out_fraction: float, seed: int = 0) -> tuple[list, list]:
    """(train, held-out) QA items such that no training item shares a relevant video with a
    held-out one: training items that do are dropped."""
    order = list(items)
    random.Random(seed).shuffle(order)
    n = _held_count(len(order), held_out_fraction)
    held = order[:n]
    held_videos = {v for item in held for v in item.relevant}
    train = [item for item in order[n:] if not held_videos.intersection(item.relevant)]
    if len(order) - n - len(train):
        log.info("%d training items dropped: they share videos with held-out ones", len(order) - n - len(train))
    return train, held


def batches(
    groups: list[Group], groups_per_batch: int, pairs_per_group: int, rng: random.Random
) -> Iterator[list[Pair]]:
    """One epoch of batches: each holds up to `groups_per_batch` groups with up to
    `pairs_per_group` random pairs each. Groups sharing a question never meet in a batch (the
    question's other video would count as a negative); batches of a single group are dropped."""
    pending = list(groups)
    rng.shuffle(pending)
    while len(pending) > 1:
        chosen: list[Group] = []
        rest: list[Group] = []
        seen: set[str] = set()
        for group in pending:
            if len(chosen) < groups_per_batch and not (group.questions & seen):
                chosen.append(group)
                seen |= group.questions
            else:
                rest.append(group)
        if len(chosen) < 2:
            return
        yield [p for g in chosen for p in rng.sample(g.pairs, min(pairs_per_group, len(g.pairs)))]
        pending = rest
