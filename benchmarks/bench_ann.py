"""ANN indexes side by side (issue: Scale II, item 1): today's IVF-Flat (`vectors/ivf.py`) beside
faiss (IVF-PQ, IVF-SQ8) and usearch (HNSW, int8), each compressed one with an exact re-score of
its short list from the float32 vectors on disk, on real MiniLM vectors (`ann_data`: WikiHowQA
segments replicated with noise, WikiHowQA's questions as queries).

Per candidate, each step in a fresh process (its own peak RSS, VmHWM, which counts the mapped
pages it touched): build (seconds, peak RSS, bytes on disk), then, per probe count and short list,
open + one query at a time on one thread (p50 / p95 ms, recall@10 against exact search, peak RSS).

    python -m benchmarks ann [--rows 1000000] [--candidates ivf-flat,faiss-ivfpq48,...] [--noise 0.6]
                             [--probes 32,64,128] [--shortlist 100]
writes OUT/ann-ROWS.json; vectors, ground truth and indexes under WORK/ann/. The usearch candidate
needs `pip install usearch` (benchmark only; videorag does not use it).
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from . import ann_data
from .driver import ROOT
from .synthetic import percentiles

BENCH = ROOT.parent / "shared" / "bench" / "howto100m-wikihow"


class Candidate:
    """An ANN index over the rows of a saved (n, dim) float32 `.npy` (mapped while building);
    `search` returns the top-k rows, after an exact re-score of `shortlist` approximate ones read
    with `pread` (`ivfpq.RowFile`: what ships) where the index is compressed; `probes`: IVF cells
    searched (HNSW: twice as many candidates kept while searching)."""

    def __init__(self, path: Path, probes: int = 32, shortlist: int = 100):
        from videorag.vectors.mapped import RowFile

        self.path, self.probes, self.shortlist = path, probes, shortlist
        self.vectors = np.load(path, mmap_mode="r").view(np.ndarray)
        self.rows = RowFile(path)

    def rescore(self, query: np.ndarray, rows: np.ndarray, k: int) -> np.ndarray:
        rows = np.sort(rows[rows >= 0])
        scores = self.rows[rows] @ query
        return rows[np.argsort(-scores)[:k]]


class IvfFlat(Candidate):
    """Today's index: every vector of the probed cells scored exactly (no short list)."""

    def build(self, folder: Path) -> None:
        from videorag.vectors.ivf import IVF

        ivf = IVF.build(self.vectors)
        for key in IVF.ARRAYS:
            np.save(folder / f"ivf.{key}.npy", getattr(ivf, key))

    def open(self, folder: Path) -> None:
        from videorag.vectors.ivf import IVF

        self.ivf = IVF(*(np.load(folder / f"ivf.{key}.npy", mmap_mode="r").view(np.ndarray) for key in IVF.ARRAYS))

    def search(self, query: np.ndarray, k: int) -> np.ndarray:
        rows, scores = self.ivf.search(query, self.probes)
        return rows[np.argsort(-scores)[:k]]


class FaissSQ8(Candidate):
    """faiss IVF with 8-bit scalar quantisation (384 bytes a vector), √n cells."""

    def build(self, folder: Path) -> None:
        import faiss

        n = len(self.vectors)
        index = faiss.index_factory(self.vectors.shape[1], f"IVF{int(np.sqrt(n))},SQ8", faiss.METRIC_INNER_PRODUCT)
        rng = np.random.default_rng(0)
        index.train(np.asarray(self.vectors[np.sort(rng.choice(n, min(n, 64 * int(np.sqrt(n))), replace=False))]))
        for lo in range(0, n, ann_data.BLOCK):
            index.add(np.asarray(self.vectors[lo : lo + ann_data.BLOCK]))
        faiss.write_index(index, str(folder / "index.faiss"))

    def open(self, folder: Path) -> None:
        import faiss

        faiss.omp_set_num_threads(1)
        self.index = faiss.read_index(str(folder / "index.faiss"), faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY)
        self.index.nprobe = self.probes

    def search(self, query: np.ndarray, k: int) -> np.ndarray:
        _, rows = self.index.search(query[None], self.shortlist)
        return self.rescore(query, rows[0], k)


class FaissPQ(FaissSQ8):
    """faiss IVF-PQ with 8-bit codes (what shipped before FastScan), √n cells, `codes` bytes a vector."""

    codes = 48

    def build(self, folder: Path) -> None:
        import faiss

        n, dim = self.vectors.shape
        cells = int(np.sqrt(n))
        codes = next(c for c in range(self.codes, 0, -1) if dim % c == 0)
        index = faiss.IndexIVFPQ(faiss.IndexFlatIP(dim), dim, cells, codes, 8, faiss.METRIC_INNER_PRODUCT)
        index.do_polysemous_training = False
        rng = np.random.default_rng(0)
        index.train(np.asarray(self.vectors[np.sort(rng.choice(n, min(n, 64 * max(cells, 256)), replace=False))]))
        for lo in range(0, n, ann_data.BLOCK):
            index.add(np.asarray(self.vectors[lo : lo + ann_data.BLOCK]))
        faiss.write_index(index, str(folder / "index.faiss"))


class FaissPQ96(FaissPQ):
    codes = 96


class FaissFastScan(Candidate):
    """What ships (`videorag.vectors.ivfpq`): faiss IVF-PQ FastScan (4-bit codes scanned with SIMD
    table lookups), √n cells, `codes` bytes a vector."""

    codes = 96

    def build(self, folder: Path) -> None:
        from videorag.vectors.ivfpq import IVFPQ

        IVFPQ.build(self.rows, codes=self.codes).save(folder / "index.faiss")  # read, not mapped: 10M rows

    def open(self, folder: Path) -> None:
        from videorag.vectors.ivfpq import IVFPQ

        self.index = IVFPQ.load(folder / "index.faiss", self.path)

    def search(self, query: np.ndarray, k: int) -> np.ndarray:
        rows, scores = self.index.search(query, self.probes, self.shortlist)
        return rows[np.argsort(-scores)[:k]]


class FaissFastScan48(FaissFastScan):
    codes = 48


class Usearch(Candidate):
    """HNSW (16 links, expansion 128 building) over int8 vectors, mapped."""

    def build(self, folder: Path) -> None:
        from usearch.index import Index

        index = Index(ndim=self.vectors.shape[1], metric="ip", dtype="i8", connectivity=16, expansion_add=128)
        for lo in range(0, len(self.vectors), ann_data.BLOCK):
            block = np.asarray(self.vectors[lo : lo + ann_data.BLOCK])
            index.add(np.arange(lo, lo + len(block)), block, threads=2)
        index.save(str(folder / "index.usearch"))

    def open(self, folder: Path) -> None:
        from usearch.index import Index

        self.index = Index.restore(str(folder / "index.usearch"), view=True)
        self.index.expansion_search = 2 * self.probes

    def search(self, query: np.ndarray, k: int) -> np.ndarray:
        found = self.index.search(query, self.shortlist, threads=1)
        return self.rescore(query, np.asarray(found.keys, np.int64), k)


CANDIDATES = {"ivf-flat": IvfFlat, "faiss-ivfpq48": FaissPQ, "faiss-ivfpq96": FaissPQ96,
              "faiss-ivfpq-fs48": FaissFastScan48, "faiss-ivfpq-fs96": FaissFastScan,
              "faiss-ivfsq8": FaissSQ8, "usearch-hnsw-i8": Usearch}


def child_build(name: str, vectors_path: str, folder: str) -> dict:
    folder_path = Path(folder)
    folder_path.mkdir(parents=True, exist_ok=True)
    candidate = CANDIDATES[name](Path(vectors_path))
    t0 = time.perf_counter()
    candidate.build(folder_path)
    size = sum(f.stat().st_size for f in folder_path.iterdir() if f.suffix != ".json")
    return {"build_s": round(time.perf_counter() - t0, 1), "build_peak_rss_gb": _peak_rss_gb(),
            "index_gb": round(size / 1e9, 3)}


def child_serve(name: str, vectors_path: str, folder: str, queries_path: str, truth_path: str, probes: int,
                shortlist: int) -> dict:
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    t0 = time.perf_counter()
    candidate = CANDIDATES[name](Path(vectors_path), probes, shortlist)
    candidate.open(Path(folder))
    queries, truth = np.load(queries_path), np.load(truth_path)
    candidate.search(queries[0], 10)
    out: dict = {"open_and_first_query_s": round(time.perf_counter() - t0, 3)}
    times, recall = [], []
    for query, exact in zip(queries, truth):
        t = time.perf_counter()
        got = candidate.search(query, 10)
        times.append((time.perf_counter() - t) * 1000)
        recall.append(len(set(got.tolist()) & set(exact.tolist())) / 10)
    out.update(percentiles(times, digits=2))
    out.update({"recall_at_10": round(float(np.mean(recall)), 4), "peak_rss_gb": _peak_rss_gb()})
    return out


def _peak_rss_gb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) * 1024 / 1e9, 3)
    return float("nan")


def _child(function: str, *args) -> dict:
    code = (f"import json; from benchmarks import bench_ann as b; "
            f"print(json.dumps(b.child_{function}(*{list(args)!r})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def options(parser) -> None:
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--candidates", default=",".join(CANDIDATES))
    parser.add_argument("--noise", type=float, default=0.6, help="replica noise (cosine ≈ 1/√(1+noise²))")
    parser.add_argument("--transcripts", type=int, default=2000, help="WikiHowQA transcripts embedded")
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--probes", default="32,64,128", help="IVF cells searched (HNSW: 2× candidates kept)")
    parser.add_argument("--shortlist", default="100", help="compressed indexes: rows re-scored exactly")
    parser.add_argument("--reuse", action="store_true", help="keep indexes (and their build figures) from a "
                        "previous run in WORK/ann/")


def main(run) -> dict:
    args = run.args
    run.label = str(args.rows)
    docs, queries = ann_data.real(run.work, args.transcripts, BENCH)
    vectors = ann_data.collection(run.work, docs, args.rows, args.noise)
    queries = queries[np.random.default_rng(1).permutation(len(queries))[: args.queries]]
    queries_path = vectors.with_name(f"queries-{len(queries)}.npy")
    np.save(queries_path, queries)
    t0 = time.perf_counter()
    truth_path = vectors.with_name(vectors.stem + f"-truth-{len(queries)}.npy")
    ann_data.truth(vectors, queries)
    results = {"command": run.command, "rows": args.rows, "real_vectors": len(docs), "queries": len(queries), "noise": args.noise,
               "exact_truth_s": round(time.perf_counter() - t0, 1), "candidates": {}}
    for name in args.candidates.split(","):
        folder = run.work / "ann" / f"{name}-{args.rows}"
        built = folder / "build.json"
        found = json.loads(built.read_text()) if args.reuse and built.exists() else _child("build", name, str(vectors),
                                                                                            str(folder))
        if "error" not in found:
            built.write_text(json.dumps(found))
        print(name, json.dumps(found), flush=True)
        for probes in map(int, args.probes.split(",")) if "error" not in found else ():
            for shortlist in map(int, args.shortlist.split(",")):
                serve = _child("serve", name, str(vectors), str(folder), str(queries_path), str(truth_path), probes,
                               shortlist)
                found[f"probes_{probes}_shortlist_{shortlist}"] = serve
                print(name, probes, shortlist, json.dumps(serve), flush=True)
        results["candidates"][name] = found
    return results
