"""Every benchmark by name: where its code is, what it measures, and whether it is in the quick
set (`make bench`: no data set or judge model needed, minutes on 2 cores). Importing this module
imports no benchmark: a name is resolved only when it runs."""
from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Bench:
    name: str
    target: str              # "module:attribute" in the benchmarks package: a function or a dict of parts
    about: str
    quick: bool = False

    def load(self):
        """(the module, its target)."""
        module_name, _, attribute = self.target.partition(":")
        module = importlib.import_module(f"benchmarks.{module_name}")
        return module, getattr(module, attribute)


BENCHES = (
    Bench("core", "bench_core:PARTS", "ingest × realtime on 10 min of narrated video, warm search p50 / p95 "
          "at 1,000 videos, ask latency per local generator", quick=True),
    Bench("methods", "bench_methods:PARTS", "search latency of every text method (plain and --moments) and of "
          "rag-adapter over 60,000 captions, at 1,000 videos", quick=True),
    Bench("visual", "bench_visual:PARTS", "frame embedding and selection speed, ingest with the visual path, "
          "videorag-vt latency"),
    Bench("captions", "bench_captions:PARTS", "ingest × realtime with OCR frame captions on beside off"),
    Bench("ingest_engines", "bench_ingest_engines:PARTS", "ingest × realtime and WER, local engine beside Ray"),
    Bench("scale", "bench_scale:main", "1M segments: build, open, warm latency, RSS, IVF recall, snapshot "
          "growth, cold CLI"),
    Bench("ann", "bench_ann:main", "ANN indexes side by side on real MiniLM vectors replicated with noise: "
          "today's IVF-Flat, faiss IVF-PQ / IVF-SQ8, usearch HNSW; build time and memory, p50 / p95, recall@10, RSS"),
    Bench("ann_quality", "bench_ann_quality:main", "WikiHowQA retrieval quality with the segment level searched "
          "exactly, through IVF-Flat and IVF-PQ, at 60k real segments: recall, nDCG, same top-10 as exact"),
    Bench("shards", "bench_shards:main", "sharded search on Ray Serve (1 / 2 / 4 shards, one box: a simulation) "
          "against one box on real WikiHowQA vectors: same top-10, p50 / p95, per-shard cost, a killed shard"),
    Bench("footprint", "bench_footprint:main", "what a user pays: clean install size and time, ingest × "
          "realtime and CPU-s per video-hour, a cold CLI ask, serve's ask p50 / p95, peak RSS and CPU-s a "
          "question, judged search p50; beside an earlier revision (--before REV)"),
    Bench("memory", "bench_memory:main", "peak RSS and × realtime of `videorag index` against video length"),
    Bench("serve", "bench_serve:main", "`videorag serve` under concurrent clients: cold start, /search "
          "p50 / p99, first streamed token"),
    Bench("onnx_embedder", "bench_onnx_embedder:main", "the int8 ONNX MiniLM against torch: vectors, bench "
          "R@k, speed"),
    Bench("embedder_speed", "bench_embedder_speed:main", "a text embedder's passages/s (40 words), one query's "
          "p50 / p95 and RSS (--set embed.backend=llamacpp: nomic-embed-text-v1.5)"),
    Bench("first_query", "bench_first_query:main", "what the first question to a freshly opened index "
          "pays per method, and whether a query loads LanceDB"),
    Bench("moments", "bench_moments:main", "moment benchmark: does a hit cite the step that answers "
          "(window_hit@1, moment_recall@k per method)"),
    Bench("realspeech", "bench_realspeech:main", "real-speech dev set (recorded English speech from packages' "
          "test data, as videos): video R@k, window_hit@1, moment recall, WER; --answers: key facts, abstention"),
    Bench("citations", "bench_citations:main", "citations at the words against at the sentence: length, "
          "whether they hold the words that say the key fact, claims' support labelled right / wrong"),
    Bench("support", "bench_support:main", "the support flag fitted on labelled claims of the citations run: "
          "held-out confusion, beside the uncalibrated flag; --refit writes videorag/verify/support.json"),
    Bench("languages", "bench_languages:main", "clips in five languages beside English ones: language "
          "identified, right video first for questions in the clip's language and in English, key fact and "
          "answer language (--answers), off-topic abstained, ingest × realtime; --calibrate fits e5's scale"),
    Bench("chapters", "bench_chapters:main", "chapters of the moment benchmark's long recordings: boundary "
          "recall, chapters against topics, titles that name the topic, the chapter stage's share of ingest"),
    Bench("judge", "bench_judge:main", "judged search on the moment benchmark: quality against cost, a row "
          "per setting"),
    Bench("judge_specific", "bench_judge_specific:main", "the judge reranking `best`'s top 10 videos on the "
          "specific-question set"),
    Bench("answers", "bench_answers:main", "answers on the moment benchmark: key facts, citations, claims, "
          "abstention"),
    Bench("answerability", "bench_answerability:main", "answerability signals on WikiHowQA and the moment "
          "benchmark, the calibrated model refit, AUROC and risk–coverage on held-out questions"),
    Bench("carve", "bench_carve:main", "CARVE beside every method and its ablations (V-RAGBench format), "
          "latency at 3,000 chunks"),
    Bench("gcl", "bench_gcl:main", "GCL / SCL fine-tuning of the text encoder: dense R@k on held-out "
          "WikiHowQA queries"),
    Bench("best_ablation", "bench_best_ablation:main", "what each part of `--method best` adds on "
          "WikiHowQA, its sensitivity, a cross-validated estimate"),
)
REGISTRY = {bench.name: bench for bench in BENCHES}
QUICK = tuple(bench for bench in BENCHES if bench.quick)
