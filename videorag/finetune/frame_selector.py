"""`videorag train-frame-selector`: collect labels from an index plus a QA set and train the frame
scorers (`videorag.visual.scorer`); the library saves them with the index and re-chooses the
videos' retrieval frames with them (`Library.save_frame_nets`). Training only computes.

Retrieval labels are cheap (frame/query similarity). Generation labels are costly (one answer
per sampled subset): they are appended to `frame_labels.jsonl` in the index folder as they come,
so an interrupted run resumes, and `max_items` caps the work.

    report = train_frame_selector(rag, load_golden_jsonl("golden.jsonl"))   # rag: a VideoRAG
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from tqdm.auto import tqdm

from ..errors import ConfigError
from ..visual import scorer
from ..visual.selection import kmeans_frames

log = logging.getLogger(__name__)
LABELS_FILE = "frame_labels.jsonl"


def retrieval_samples(rag, items, show_progress: bool = False) -> list[scorer.LabelledSubset]:
    cfg, samples = rag.config.ingest, []
    index, visual = rag.library.index, rag.library.visual
    known = index.video_ids()
    for item in tqdm(items, disable=not show_progress, desc="retrieval labels"):
        query = visual.embed_texts([item.query])[0]
        for video_id in (v for v in item.relevant if v in known):
            _, vectors = index.frame_vectors(video_id)
            candidates = kmeans_frames(vectors, cfg.retrieval_frames)
            samples += scorer.retrieval_labels(vectors[candidates], query, cfg.retrieval_subset)
    return samples


def collect_generation_labels(rag, items, max_items: int, subsets: int = 40, show_progress: bool = False) -> Path:
    """Answer each item with `subsets` random frame subsets; label top-3 / bottom-3 by ROUGE-L."""
    from ..eval.metrics import rouge_l
    from ..generate import BACKENDS, resolve_backend

    if "reads-images" not in BACKENDS.traits(resolve_backend(rag.config.generate.backend)):
        raise ConfigError(
            "generation labels need a generator that sees frames",
            "use --generator openai with a vision-language model server",
        )
    path = rag.library.location.local / LABELS_FILE
    done = {json.loads(line)["qid"] for line in path.open()} if path.is_file() else set()
    todo = [it for it in items if it.answer and it.qid not in done][: max(0, max_items - len(done))]
    cfg, index = rag.config.generate, rag.library.index
    for item in tqdm(todo, disable=not show_progress, desc="generation labels"):
        video_id = next((v for v in item.relevant if v in index.video_ids()), None)
        if video_id is None:
            continue
        times, vectors = index.frame_vectors(video_id)
        pool = kmeans_frames(vectors, cfg.frame_candidates)
        if len(pool) <= cfg.frames_per_video:
            continue  # nothing to choose
        hit = rag.search(item.query, top_k=1)[0]
        evidence = rag.excerpt(hit, item.query)
        frames = {f.t: f for f in index.frames(video_id)}
        chosen_sets = scorer.random_subsets(len(pool), cfg.frames_per_video, subsets, seed=len(done))
        quality = []
        for subset in chosen_sets:
            evidence.frames = [frames[float(times[pool[i]])] for i in subset if float(times[pool[i]]) in frames]
            answer = rag.generator.generate(item.question or item.query, [evidence]).answer
            quality.append(rouge_l([answer], [item.answer]).value)
        good, bad = scorer.top_bottom(quality)
        rows = [
            {
                "qid": item.qid,
                "query": item.query,
                "video_id": video_id,
                "label": label,
                "times": [float(times[pool[i]]) for i in chosen_sets[j]],
            }
            for label, group in ((1.0, good), (0.0, bad))
            for j in group
        ]
        scorer.append_labels(path, rows)
    return path


def generation_samples(rag, path: Path) -> list[scorer.LabelledSubset]:
    samples, index = [], rag.library.index
    for row in map(json.loads, path.open()):
        times, vectors = index.frame_vectors(row["video_id"])
        where = {float(t): i for i, t in enumerate(times)}
        picked = [where[t] for t in row["times"] if t in where]
        if picked:
            query = rag.library.visual.embed_texts([row["query"]])[0]
            samples.append(scorer.LabelledSubset(vectors[picked], row["label"], query))
    return samples


def train_frame_selector(
    rag, items, generation: bool = False, max_items: int = 100, epochs: int = 30, show_progress: bool = False
) -> dict:
    """Train the frame scorers of `rag`'s index on `items` (`train_scorers`), then have its
    library save them and re-choose every video's retrieval frames; the training report, with
    `refreshed_videos` (how many were re-chosen)."""
    nets, meta, report = train_scorers(rag, items, generation, max_items, epochs, show_progress)
    report["refreshed_videos"] = rag.library.save_frame_nets(nets, meta)
    return report


def train_scorers(
    rag, items, generation: bool = False, max_items: int = 100, epochs: int = 30, show_progress: bool = False
) -> tuple[dict, dict, dict]:
    """(nets {"retrieval"[, "generation"]}, their metadata, the report {kind: {samples, losses}}):
    the scorers trained on labels from `rag`'s index; writes nothing but the generation labels."""
    index = rag.library.index
    if not index.has_visual:
        raise ConfigError(
            f"index {rag.library.location} has no frame embeddings",
            "index with --visual clip --visual-model FOLDER first",
        )
    visual = rag.library.visual
    index.check_visual(visual.model_name, visual.dim)
    dim, nets, report = visual.dim, {}, {}
    samples = retrieval_samples(rag, items, show_progress)
    if not samples:
        raise ConfigError(
            "no training labels: none of the QA set's relevant videos is in the index",
            "check that the QA file's video ids are ids from `videorag info --json`",
        )
    nets["retrieval"] = scorer.build_retrieval_net(dim, rag.config.ingest.retrieval_subset)
    report["retrieval"] = {"samples": len(samples), "losses": scorer.train(nets["retrieval"], samples, epochs).losses}
    if generation:
        gen_samples = generation_samples(
            rag, collect_generation_labels(rag, items, max_items, show_progress=show_progress)
        )
        if gen_samples:
            nets["generation"] = scorer.GenerationNet.build(dim)
            report["generation"] = {
                "samples": len(gen_samples),
                "losses": scorer.train(nets["generation"], gen_samples, epochs).losses,
            }
    meta = {"dim": dim, "subset": rag.config.ingest.retrieval_subset, "hidden": 256, "visual_model": visual.model_name}
    return nets, meta, report
