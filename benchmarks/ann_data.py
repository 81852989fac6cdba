"""Vectors for the ANN benchmarks: real MiniLM embeddings of WikiHowQA transcripts (30-word
windows, the length of a spoken segment) and WikiHowQA's questions as queries, and a collection
of any size made from them: each row a real vector plus noise (a replica: another segment saying
nearly the same), written block by block to a memory-mapped `.npy` so 10M rows never sit in
memory; and the exact top-10 of each query over it (the ground truth of recall@10).

The vectors come from the int8 ONNX export of all-MiniLM-L6-v2 (the query path's embedder:
cosine ≥ 0.999 to the torch vectors an index holds), the faster of the two on these cores."""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

DIM = 384
WINDOW = 30  # words per segment
BLOCK = 500_000  # rows per block written or scanned


def real(work: Path, transcripts: int, bench: Path) -> tuple[np.ndarray, np.ndarray]:
    """(documents, queries) unit float32 vectors, cached in WORK/ann/real-N.npz."""
    path = work / "ann" / f"real-{transcripts}.npz"
    if not path.exists():
        docs, questions = _texts(bench, transcripts)
        from videorag.config import EmbedConfig
        from videorag.embed import create_embedder

        embedder = create_embedder(EmbedConfig(batch_size=128), "onnx")
        t0 = time.perf_counter()
        vectors = embedder.embed(docs)
        print(f"embedded {len(docs)} segments in {time.perf_counter() - t0:.0f} s", flush=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, docs=vectors, queries=embedder.embed(questions))
    found = np.load(path)
    return found["docs"], found["queries"]


def _texts(bench: Path, transcripts: int) -> tuple[list[str], list[str]]:
    from videorag.eval.datasets import load_transcripts

    texts = list(load_transcripts(bench / "transcripts.jsonl.gz").values())[:transcripts]
    docs = [" ".join(w[i : i + WINDOW]) for t in texts for w in [t.split()] for i in range(0, len(w), WINDOW)]
    items = json.loads((bench / "wikihow_qa.json").read_text())
    questions = [q[field] for q in items for field in ("howto100m_query_text", "wikihow_query_text")]
    return docs, questions


def collection(work: Path, base: np.ndarray, rows: int, noise: float, seed: int = 0) -> Path:
    """WORK/ann/vectors-ROWS.npy: row i = unit(base[i mod len] + noise · g/√dim), g ~ N(0, I)
    (noise 0.6: cosine ≈ 0.86 to its source; the first len(base) rows are the real vectors)."""
    path = work / "ann" / f"vectors-{rows}-{noise}.npy"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(".part")
    out = np.lib.format.open_memmap(part, mode="w+", dtype=np.float32, shape=(rows, base.shape[1]))
    rng = np.random.default_rng(seed)
    for lo in range(0, rows, BLOCK):
        idx = np.arange(lo, min(rows, lo + BLOCK)) % len(base)
        block = base[idx] + noise * rng.standard_normal((len(idx), base.shape[1]), np.float32) / np.sqrt(DIM)
        first = np.arange(lo, lo + len(idx)) < len(base)
        block[first] = base[idx[first]]
        out[lo : lo + len(idx)] = block / np.linalg.norm(block, axis=1, keepdims=True)
    out.flush()
    del out
    part.rename(path)
    return path


def truth(vectors_path: Path, queries: np.ndarray, k: int = 10) -> np.ndarray:
    """(queries, k) rows of the exact top-k by inner product, cached beside the vectors."""
    path = vectors_path.with_name(vectors_path.stem + f"-truth-{len(queries)}.npy")
    if path.exists():
        return np.load(path)
    vectors = np.load(vectors_path, mmap_mode="r")
    best_scores = np.full((len(queries), k), -np.inf, np.float32)
    best_rows = np.zeros((len(queries), k), np.int64)
    for lo in range(0, len(vectors), BLOCK):
        scores = queries @ np.asarray(vectors[lo : lo + BLOCK]).T
        part = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        merged_scores = np.concatenate([best_scores, np.take_along_axis(scores, part, 1)], axis=1)
        merged_rows = np.concatenate([best_rows, part + lo], axis=1)
        keep = np.argsort(-merged_scores, axis=1)[:, :k]
        best_scores, best_rows = np.take_along_axis(merged_scores, keep, 1), np.take_along_axis(merged_rows, keep, 1)
    np.save(path, best_rows)
    return best_rows
