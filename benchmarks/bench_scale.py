"""Scale benchmark (issue: search served from the index on disk at 1M segments).

1. build an index of N segments (default 1,000,000: 20,000 videos × 50 six-second segments of
   generated how-to text, `bench_core`'s generator; vectors clustered the way real embeddings
   are — topic centres, each video near its topic, each segment near its video; chunks the mean
   of their segments) and its search snapshot (IVF on the segment level); report build times and
   size on disk;
2. in a new process: open + first query, warm p50 / p95 of the default method (`textvideorag`,
   plain search), of `--moments` search and of its two halves alone (`dense`, `bm25`), peak RSS.
   Queries are synthetic vectors (a segment's vector plus noise: a paraphrase), so the search
   runs through the real searcher without a model;
   the real query embedder's time is measured apart (`embed_ms`);
3. recall@10 of the IVF path against exact search on the same vectors, for several probe counts;
   where the segment level is compressed (IVF-PQ), what fusing it over short lists changes
   against fusing over every item (`fusion`: top-10 videos alike, milliseconds), in a new process;
4. today's in-memory path (`snapshot.build.corpus_of`: read every unit, build BM25 in Python) at the
   same size, in a new process: seconds and peak RSS; then 10 videos added, and the seconds to
   extend the snapshot with them (what `videorag index` does after adding videos);
5. `videorag shard --shards 4` on the index, in a new process: seconds, peak RSS, disk;
6. a cold `videorag search` process on a small index (the demo corpus), CPU seconds, median of 5:
   by default (queries on the ONNX export) and with `--embed-backend sentence-transformers`.

    python -m benchmarks scale [--segments 1000000] [--skip build,serve,recall,fusion,memory,shard,grow,cli]
writes OUT/scale.json (steps run apart are merged into it); the index is WORK/scale-index.
"""
from __future__ import annotations

import json
import random
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from .driver import ROOT, run_parts
from .synthetic import TOPICS, percentiles, question, sentence, times_ms, unit

DIM = 384
PER_VIDEO = 50
MODEL = "synthetic-clustered-384"


class QueryVectors:
    """The query embedder of this benchmark: a query text names a segment ("q:ROW") and gets
    that segment's vector plus noise; any other text a random unit vector."""

    model_name, dim, max_words = MODEL, DIM, 160

    def __init__(self, vectors: np.ndarray, noise: float = 0.5, seed: int = 0):
        self.vectors, self.noise, self.rng = vectors, noise, np.random.default_rng(seed)

    def embed(self, texts: list[str]) -> np.ndarray:
        out = []
        for text in texts:
            base = self.vectors[int(text.split(":")[1].split()[0])] if text.startswith("q:") else 0
            out.append(unit(base + self.noise * self.rng.normal(size=DIM) / np.sqrt(DIM)))
        return np.asarray(out, np.float32)


def _records(videos: int, seed: int = 0):
    """Batches of VideoRecords, 200 videos each (1 in 200 of them at 10M segments: fewer, larger
    writes, as a busy ingest makes)."""
    from videorag.index import VideoRecord
    from videorag.ingest.chunking import window_chunks
    from videorag.types import Segment

    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    centres = unit(nrng.normal(size=(len(TOPICS) * 4, DIM)))
    batch = []
    for v in range(videos):
        topic = TOPICS[v % len(TOPICS)]
        segs = [Segment(6.0 * i, 6.0 * i + 5.5, sentence(rng, topic)) for i in range(PER_VIDEO)]
        chunks = window_chunks(segs, 120.0, segs[-1].end)
        video = unit(centres[v % len(centres)] + 0.9 * unit(nrng.normal(size=DIM)))
        seg_vectors = unit(video + 0.8 * unit(nrng.normal(size=(PER_VIDEO, DIM)))).astype(np.float32)
        chunk_vectors = np.stack([unit(seg_vectors[[i for i, s in enumerate(segs) if c.start <= s.start < c.end]]
                                        .mean(axis=0)) for c in chunks]).astype(np.float32)
        batch.append(VideoRecord(f"vid{v:06d}", f"/corpus/vid{v:06d}.mp4", 0, 0, segs[-1].end, "asr",
                                 segs, seg_vectors, chunks, chunk_vectors))
        if len(batch) == max(200, videos // 200):
            yield batch
            batch = []
    if batch:
        yield batch


def _rag(index_dir: Path, ann_min_rows: int = 50_000, ann_compress_rows: int = 2_000_000):
    from videorag import Config, VideoRAG
    from videorag.config import SearchConfig

    search = SearchConfig(ann_min_rows=ann_min_rows, ann_compress_rows=ann_compress_rows)
    config = Config(show_progress=False, search=search)
    return VideoRAG(index_dir, config, embedder=QueryVectors(np.zeros((1, DIM))))


def bench_build(run) -> dict:
    from videorag.index import VideoIndex

    segments, index_dir = run.args.segments, run.work / "scale-index"
    shutil.rmtree(index_dir, ignore_errors=True)
    index = VideoIndex.open_or_create(index_dir, MODEL, DIM)
    written = generated = 0.0  # the writer's seconds, and this benchmark's own for making the records
    t0 = time.perf_counter()
    for batch in _records(segments // PER_VIDEO):
        t1 = time.perf_counter()
        index.add_many(batch)
        written += time.perf_counter() - t1
        generated += t1 - t0
        t0 = time.perf_counter()
    t0 = time.perf_counter()
    index.compact()
    compacted = time.perf_counter() - t0
    t0 = time.perf_counter()
    found = _rag(index_dir, run.args.ann_min_rows, run.args.ann_compress_rows).library.save_snapshot()
    snap = time.perf_counter() - t0
    return {"segments": found["levels"]["segment"]["rows"], "chunks": found["levels"]["chunk"]["rows"],
            "videos": found["levels"]["video"]["rows"], "write_seconds": round(written, 1),
            "generate_seconds": round(generated, 1),
            "compact_seconds": round(compacted, 1), "snapshot_seconds": round(snap, 1),
            "ann": found["levels"]["segment"]["ann"], "snapshot_read_seconds": found["read_seconds"],
            "snapshot_level_seconds": {name: level["seconds"] for name, level in found["levels"].items()},
            "disk_gb_total": _disk_gb(index_dir), "disk_gb_snapshot": _disk_gb(index_dir / "search"),
            "peak_rss_gb": _peak_rss_gb()}   # the benchmark process's: writing, compacting, snapshot


def bench_grow(run, videos: int = 10) -> dict:
    """Add `videos` new videos to the index (as an ingest run does), then bring the snapshot up
    to date: extended with the new videos (what `add` does) — seconds."""
    from videorag.index import VideoIndex
    from videorag import snapshot

    index_dir = run.work / "scale-index"
    rag = _rag(index_dir)
    base = snapshot.manifest(index_dir)
    known = len(base["video_ids"])
    batch = [r for b in _records(known + videos, seed=7) for r in b][known:]
    for r in batch:
        r.video_id = "new-" + r.video_id
    VideoIndex.open(index_dir).add_many(batch)
    t0 = time.perf_counter()
    extended = rag.library.extend_snapshot(base) is not None   # None: not extendable, nothing done
    return {"videos_added": videos, "extended": extended, "seconds": round(time.perf_counter() - t0, 1)}


def child_serve(index_dir: Path, queries: int) -> dict:
    """In a fresh process: open + first query, warm latency, peak RSS."""
    t0 = time.perf_counter()
    rag = _rag(index_dir)
    vectors = rag.library.embedder.vectors = rag.live.get().corpus.segments.vectors   # queries near its rows
    rag.search("q:0")
    first = time.perf_counter() - t0
    rng = random.Random(1)
    texts = [f"q:{rng.randrange(len(vectors))} {question(rng)}" for _ in range(queries)]
    out = {"open_and_first_query_s": round(first, 3)}
    for name, method, moments in (("search", None, False), ("moments", None, True), ("dense", "dense", False),
                                  ("bm25", "bm25", False)):   # the default method, then its two halves alone
        times = times_ms(lambda text: rag.search(text, top_k=10, method=method, moments=moments), texts)
        out.update({f"{name}_{k}": v for k, v in percentiles(times, digits=1).items()})
        if name == "moments":   # the default method's searches alone (the halves below map pages of their own)
            out["peak_rss_gb_default"] = _peak_rss_gb()
    out["peak_rss_gb"] = _peak_rss_gb()
    out["rss_now_gb"] = {k: _status_gb(k) for k in ("RssAnon", "RssFile")}   # own memory / mapped files
    return out


def child_fusion(index_dir: Path, queries: int) -> dict:
    """In a fresh process: what fusing the ANN levels of a compressed corpus over short lists
    (`short_alpha_fuse`, the default there) changes against fusing them over every item
    (`candidate_alpha_fuse`, same ANN candidates): the share of queries whose top-10 videos are
    the same set / list, their mean overlap, how often the query's own video (the source of its
    vector) is first / in the top 10, and the milliseconds of those levels either way."""
    from videorag.methods import create_method
    from videorag.methods.text import candidate_alpha_fuse, fuses_short, levels, short_alpha_fuse

    rag = _rag(index_dir)
    searcher, config = rag.live.get(), rag.config.search
    rag.library.embedder.vectors = searcher.corpus.segments.vectors
    method, n = create_method("textvideorag", config), len(searcher.corpus.video_ids)
    rng = random.Random(5)
    rows = [rng.randrange(len(searcher.corpus.segments)) for _ in range(queries)]
    texts = [f"q:{row} {question(rng)}" for row in rows]
    times: dict = {"short": [], "every": []}
    found: dict = {"short": [], "every": []}  # rank of the query's own video (its vector's source)
    same_set, same_list, overlap = [], [], []
    for row, text in zip(rows, texts):
        tops = {}
        for name, fuse in (("short", short_alpha_fuse), ("every", candidate_alpha_fuse)):
            qc, total, spent = searcher.context(text, config), np.zeros(n, np.float32), 0.0
            for level_name, level in levels(searcher.corpus):
                weight = getattr(config, f"{level_name}_weight")
                if fuses_short(searcher.corpus, level):
                    t = time.perf_counter()
                    total += weight * fuse(qc, level, n, method.alpha, config.max_correction)
                    spent += time.perf_counter() - t
                else:
                    total += weight * method.level_scores(qc, level_name, level, n)
            times[name].append(spent * 1000)  # the levels fused over short lists (or, to compare, every item)
            tops[name] = list(np.argsort(-total, kind="stable")[:10])
            own = int(searcher.corpus.segments.owner[row])
            found[name].append(tops[name].index(own) if own in tops[name] else 10)
        same_set.append(set(tops["short"]) == set(tops["every"]))
        same_list.append(tops["short"] == tops["every"])
        overlap.append(len(set(tops["short"]) & set(tops["every"])) / 10)
    out = {"queries": queries, "same_top10_set": round(float(np.mean(same_set)), 3),
           "same_top10_list": round(float(np.mean(same_list)), 3), "overlap_at_10": round(float(np.mean(overlap)), 3)}
    out.update({f"{name}_level_{k}": v for name, t in times.items() for k, v in percentiles(t, digits=1).items()})
    for name, ranks in found.items():   # generated text is unrelated to the query's vector: its BM25 half is noise
        out.update({f"{name}_own_video_at_{k}": round(float(np.mean(np.array(ranks) < k)), 3) for k in (1, 10)})
    return out


def child_shard(index_dir: Path, shards: int = 4) -> dict:
    """In a fresh process: `videorag shard --shards N` on the scale index (its snapshot split into
    shard snapshots, what a Ray Serve deployment per shard serves): seconds, peak RSS, disk."""
    from videorag.shard.split import FOLDER, split

    t0 = time.perf_counter()
    found = split(_rag(index_dir).library, shards)
    seconds = time.perf_counter() - t0
    disk = _disk_gb(index_dir / FOLDER)
    shutil.rmtree(index_dir / FOLDER)  # the grow part's new videos would leave them stale
    return {"shards": shards, "seconds": round(seconds, 1), "peak_rss_gb": _peak_rss_gb(), "disk_gb": disk,
            "segments": [s["segments"] for s in found["shards"]]}


def child_memory(index_dir: Path) -> dict:
    """In a fresh process: today's in-memory path (read every unit, build BM25) and its RSS."""
    from videorag.index import VideoIndex
    from videorag.snapshot.build import corpus_of

    t0 = time.perf_counter()
    corpus = corpus_of(VideoIndex.open(index_dir))
    return {"segments": len(corpus.segments), "open_s": round(time.perf_counter() - t0, 1),
            "peak_rss_gb": _peak_rss_gb()}


def _disk_gb(folder: Path) -> float:
    """GB of the files under `folder`."""
    return round(sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e9, 2)


def _peak_rss_gb() -> float:
    """This process's peak RSS (VmHWM: unlike getrusage's maxrss, not inherited from the parent)."""
    return _status_gb("VmHWM")


def _status_gb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return round(int(line.split()[1]) * 1024 / 1e9, 3)
    return float("nan")


def bench_recall(run, queries: int = 200) -> dict:
    """recall@10 of the level's ANN index against exact search over the same vectors, for queries
    near a segment (noise 0.5: a paraphrase) and far from any (noise 1.5: a vague question), at
    several probe counts (IVF-PQ: the default short list re-scored)."""
    from videorag import snapshot

    index_dir = run.work / "scale-index"
    level = snapshot.load(index_dir, snapshot.token(index_dir)).segments
    vectors = np.asarray(level.vectors)
    rows = np.random.default_rng(3).integers(0, len(vectors), queries)
    base = level.ann.probes
    out = {}
    for noise in (0.5, 1.5):
        qs = QueryVectors(vectors, noise=noise, seed=2).embed([f"q:{r}" for r in rows])
        t = time.perf_counter()
        exact = _exact_top10(vectors, qs)
        out["exact_ms"] = round((time.perf_counter() - t) / len(qs) * 1000, 1)   # a query, batched
        for probes in (base // 4, base // 2, base, base * 2):
            found, times = [], []
            for q, truth in zip(qs, exact):
                t = time.perf_counter()
                got, scores = level.ann.search(q, probes, run.args.shortlist)
                times.append((time.perf_counter() - t) * 1000)
                found.append(len(set(got[np.argsort(-scores)[:10]]) & truth) / 10)
            out[f"noise_{noise}_probes_{probes}"] = {"recall_at_10": round(float(np.mean(found)), 4),
                                                      "p50_ms": round(float(np.median(times)), 2)}
    return {"ann": level.ann.kind, "shortlist": run.args.shortlist, **out}


def _exact_top10(vectors: np.ndarray, queries: np.ndarray, block: int = 500_000) -> list[set]:
    """Each query's exact top-10 rows, one pass over the vectors a block at a time."""
    best = np.zeros((len(queries), 0), np.int64)
    best_scores = np.zeros((len(queries), 0), np.float32)
    for lo in range(0, len(vectors), block):
        hi = min(lo + block, len(vectors))
        scores = np.concatenate([best_scores, queries @ np.asarray(vectors[lo:hi], np.float32).T], axis=1)
        rows = np.concatenate([best, np.broadcast_to(np.arange(lo, hi), (len(queries), hi - lo))], axis=1)
        keep = np.argpartition(-scores, 10, axis=1)[:, :10]
        best, best_scores = np.take_along_axis(rows, keep, 1), np.take_along_axis(scores, keep, 1)
    return [set(r) for r in best]


def bench_cli(run, runs: int = 5) -> dict:
    """CPU seconds (user + sys) of a whole `videorag search` process on the demo index."""
    from videorag import Config, VideoRAG
    from videorag.demo import make_corpus

    folder = run.work / "demo"
    make_corpus(folder / "videos", show=False)
    VideoRAG(folder / "index", Config(show_progress=False)).add([folder / "videos"])
    result = {}
    for backend in ("default", "sentence-transformers"):   # default: queries on the ONNX export
        cpu = []
        flag = [] if backend == "default" else ["--embed-backend", backend]
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([sys.executable, "-m", "videorag.cli", "search", "where is the inner tube leaking",
                            "--index", str(folder / "index"), *flag], check=True, capture_output=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        result[backend] = {"cpu_s_median": round(float(np.median(cpu)), 2), "cpu_s": [round(c, 2) for c in cpu]}
    return result


def _child(kind: str, run, queries: int = 200) -> dict:
    """`child_KIND` on the scale index, in a fresh Python process (its own peak RSS)."""
    args = f"Path({str(run.work / 'scale-index')!r})" + (f", {queries}" if kind in ("serve", "fusion") else "")
    code = (f"import json; from pathlib import Path; from benchmarks import bench_scale as b; "
            f"print(json.dumps(b.child_{kind}({args})))")
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(done.stdout.strip().splitlines()[-1])


def options(parser) -> None:
    parser.add_argument("--segments", type=int, default=1_000_000)
    parser.add_argument("--ann-min-rows", type=int, default=50_000, help="levels this large get IVF")
    parser.add_argument("--ann-compress-rows", type=int, default=2_000_000, help="levels this large get IVF-PQ")
    parser.add_argument("--shortlist", type=int, default=200, help="rows an IVF-PQ search re-scores (recall part)")


PARTS = {"build": bench_build, "serve": lambda run: _child("serve", run), "recall": bench_recall,
         "fusion": lambda run: _child("fusion", run),
         "memory": lambda run: _child("memory", run), "shard": lambda run: _child("shard", run),
         "grow": bench_grow, "cli": bench_cli}


def main(run) -> dict:
    return run_parts(run, PARTS, segments_asked=run.args.segments)
