"""Handlers of `videorag eval` subcommands; each returns its result dict (or list of them)."""

from __future__ import annotations

import time

import numpy as np

from ..errors import ConfigError
from ..generate import Completes
from . import paper, report
from .cli import bench_dir, load_corpus, write_report
from .runner import evaluate_generation, evaluate_retrieval, score_predictions, transcript_evidence
from .transcripts import TranscriptCorpusConfig, transcript_corpus

BENCH_METHODS = ("bm25", "dense", "hybrid", "best")  # `--method all`


class BenchRanker:
    """Ranks a transcript corpus through the registered methods (the one retrieval code path)."""

    def __init__(self, args, config, transcripts: dict[str, str]):
        import time

        from ..embed import create_embedder
        from ..retrieve import Searcher

        self.config = config
        embedder = create_embedder(config.embed)
        start = time.perf_counter()
        corpus = transcript_corpus(
            transcripts, embedder, TranscriptCorpusConfig(pieces=args.pieces), args.cache_dir, config.show_progress
        )
        self.seconds = time.perf_counter() - start
        self.searcher = Searcher(corpus, embedder)

    def ranker(self, name: str, k: int = 10):
        """item -> its `k` best video ids, by the registered method `name`."""
        from ..methods import create_method
        from ..retrieve import Query

        method = create_method(name, self.config.search)
        return lambda item: self.searcher.rank_ids(Query(item.query, item.question), method, self.config.search, k)

    def timing(self) -> str:
        return (
            f"Building the corpus of {len(self.searcher.corpus.video_ids)} transcripts (BM25 and "
            f"embeddings, the latter cached): {self.seconds:.1f} s."
        )


def cmd_retrieval(args, config):
    transcripts, items = load_corpus(args)
    bench = BenchRanker(args, config, transcripts)
    methods = list(BENCH_METHODS) if args.method == "all" else args.method.split(",")
    results = [evaluate_retrieval(items, bench.ranker(m), m, show_progress=config.show_progress) for m in methods]
    for m, r in zip(methods, results, strict=True):
        r["alpha"] = config.search.fusion_alpha(m)
    write_report(
        args,
        "retrieval",
        [
            ("Retrieval (first-gold Recall is the paper's definition)", report.retrieval_table(results)),
            ("Indexing", bench.timing()),
        ],
        {"results": results},
    )
    return results[0] if len(results) == 1 else results


def cmd_sweep(args, config):
    transcripts, items = load_corpus(args)
    bench = BenchRanker(args, config, transcripts)
    sweep = []
    for alpha in np.linspace(0.0, 1.0, args.steps):
        config.search.alpha = float(alpha)
        r = evaluate_retrieval(items, bench.ranker("hybrid"), f"hybrid α={alpha:.1f}")
        r["alpha"] = round(float(alpha), 3)
        sweep.append(r)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        report.plot_sweep(sweep, args.out / "alpha_sweep.png")
    write_report(
        args,
        "alpha_sweep",
        [("Hybrid retrieval vs α", report.retrieval_table(sweep) + "\n\n![R@k vs α](alpha_sweep.png)")],
        {"sweep": sweep},
    )
    return sweep


def cmd_reproduce(args, config):
    from .datasets import load_predictions

    folder = (args.bench or bench_dir()) / "reference"
    results = []
    for method in paper.REFERENCE_RUNS:
        path = folder / f"internvl2_5_8b_{method}.json.gz"
        if not path.is_file():
            raise ConfigError(f"reference predictions {path} not found", "pass --bench FOLDER")
        r = score_predictions(load_predictions(path), f"{method} (shipped predictions)", args.bertscore_model)
        r["generator"] = "InternVL2.5-8B"
        results.append(r)
    write_report(
        args,
        "reproduction",
        [
            ("Shipped InternVL2.5-8B predictions, re-scored", report.generation_table(results)),
            ("Notes", "\n".join(report.notes(results)) or "–"),
        ],
        {"results": results},
    )
    return results


GENERATION_METHODS = ("naive", "oracle", "textrag")  # beside the registered retrieval methods


def _context(args, config, transcripts):
    """The evidence each generation method gives the generator for an item: none (`naive`), the
    gold video's (`oracle`), `--documents`' best (`textrag`), else the best transcripts of the
    registered retrieval method of that name (`textvideorag`, `best`, ...)."""
    from ..methods import METHODS

    method = args.method
    if method == "naive":
        return lambda item: []
    if method == "oracle":
        return lambda item: [transcript_evidence(item.relevant[0], transcripts[item.relevant[0]], item.query)]
    if method == "textrag":
        if args.documents is None:
            raise ConfigError("textrag needs a document corpus", "pass --documents FILE.jsonl ({id, text} lines)")
        from .datasets import load_transcripts

        docs = load_transcripts(args.documents)
        rank = BenchRanker(args, config, docs).ranker(args.textrag_retriever, config.generate.videos)
        return lambda item: [transcript_evidence(d, docs[d], item.query) for d in rank(item)]
    if method in METHODS.names():
        rank = BenchRanker(args, config, transcripts).ranker(method, config.generate.videos)
        return lambda item: [transcript_evidence(v, transcripts[v], item.query) for v in rank(item)]
    raise ConfigError(
        f"unknown generation method {method!r}",
        f"choose {' | '.join(GENERATION_METHODS)} or a retrieval method ({', '.join(METHODS.names())})",
    )


def cmd_generation(args, config):
    from ..config import GenerateConfig
    from ..generate import create_generator

    transcripts, items = load_corpus(args)
    generator = create_generator(config.generate)
    judge = None
    if args.judge:
        judge_gen = create_generator(GenerateConfig(backend=args.judge, model=args.judge_model))
        if not isinstance(judge_gen, Completes):
            raise ConfigError(f"generator {args.judge!r} cannot judge", "use --judge llamacpp or openai")
        judge = judge_gen.complete
    result = evaluate_generation(
        items,
        _context(args, config, transcripts),
        generator,
        args.method,
        args.bertscore_model,
        judge,
        show_progress=config.show_progress,
    )
    write_report(
        args,
        f"generation-{args.method}-{config.generate.backend}",
        [("Generation", report.generation_table([result])), ("Notes", "\n".join(report.notes([result])) or "–")],
        {"result": result},
    )
    return result


def cmd_index(args, config):
    from ..pipeline import VideoRAG
    from .datasets import load_golden_jsonl, load_triplets

    items = load_triplets(args.golden) if args.triplets else load_golden_jsonl(args.golden)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if not methods:
        raise ConfigError(f"--method needs at least one name, got {args.methods!r}", "e.g. --method textvideorag")
    rag = VideoRAG(args.index, config)
    results = [evaluate_index(rag, items, m, show_progress=config.show_progress) for m in methods]
    if args.judge:
        from ..config import GenerateConfig
        from ..generate import create_generator
        from .vragbench import generation_pass

        judge = create_generator(GenerateConfig(backend=args.judge, model=args.judge_model, max_tokens=4))
        answered = [it for it in items if it.answer]
        for m, result in zip(methods, results, strict=True):
            result.update(generation_pass(rag, answered, m, judge))
    write_report(
        args, "index-eval", [("Moments and videos over your index", report.index_table(results))], {"results": results}
    )
    return results[0] if len(results) == 1 else results


def evaluate_index(rag, items, method: str, k: int = 10, show_progress: bool = False) -> dict:
    """Video retrieval metrics of plain search (one hit per video) plus, over the items with gold
    windows, where the hits point: window_hit@1, video_hit@1, moment_recall@5/@10, moment_mrr
    (the last three from moment search: top moments across the collection), V-RAGBench's
    chunk_recall@5 / chunk_ndcg@5 and the moment search's stage times (`stages_ms`)."""
    from . import metrics
    from .vragbench import chunk_scores

    hits, moments = {}, {}
    windowed = [it for it in items if it.windows]
    stages: list[dict] = []
    for it in windowed:  # timed first: a second search of a query would find its work cached
        stages.append({})
        start = time.perf_counter()
        moments[it.qid] = rag.search(it.query, k, method=method, moments=True, timings=stages[-1])
        stages[-1]["total"] = time.perf_counter() - start

    def rank(item):
        hits[item.qid] = rag.search(item.query, k, method=method)
        return [h.video_id for h in hits[item.qid]]

    result = evaluate_retrieval(items, rank, method, k=k, show_progress=show_progress)
    runs = [moments[it.qid] for it in windowed]
    scores = metrics.moment_scores(windowed, [hits[it.qid] for it in windowed], runs) + chunk_scores(
        windowed, runs, rag.live.get().corpus.chunk_seconds
    )
    result.update({s.name: round(s.value, 4) for s in scores}, n_windows=len(windowed), stages_ms=_percentiles(stages))
    rows = {row["qid"]: row for row in result["per_item"]}
    for i, it in enumerate(windowed):
        rows[it.qid].update(
            {s.name: s.per_item[i] for s in scores}, top=_spans(hits[it.qid][:1]), moments=_spans(moments[it.qid])
        )
    return result


def _percentiles(stages: list[dict]) -> dict:
    """{stage: {p50, p95}} in milliseconds, over the queries that report the stage."""
    names = sorted({name for t in stages for name in t})
    return {
        name: {
            f"p{q}": round(float(np.percentile([t[name] for t in stages if name in t], q)) * 1000, 1) for q in (50, 95)
        }
        for name in names
    }


def _spans(hits) -> list:
    return [[h.video_id, round(h.start, 2), round(h.end, 2)] for h in hits]


def cmd_make_qa(args, config):
    import sys

    from ..generate import create_generator
    from ..index import VideoIndex
    from .make_qa import make_qa, summary_line, write_jsonl

    if args.out == "-" and args.json:
        raise ConfigError("--out - and --json would both print to stdout", "write the triplets to a file")
    generator = create_generator(config.generate)
    qa = make_qa(VideoIndex.open(args.index), generator, args.per_video, args.seed, config.show_progress)
    write_jsonl([it.triplet() for it in qa.kept], args.out)
    if args.rejects is not None:
        write_jsonl([it.record() for it in qa.dropped], args.rejects)
    summary = qa.summary()
    print(summary_line(summary, args.out), file=sys.stderr)
    return summary


def cmd_answers(args, config):
    """`eval answers`: ask every question of a golden answer set over an index; score the answers
    (`videorag.eval.answers`) with the time to the first streamed piece and to the whole answer."""
    import json

    from ..pipeline import VideoRAG
    from .answers import by_group, score_answers

    items = [json.loads(line) for line in args.golden.read_text().splitlines() if line.strip()]
    if not items:
        raise ConfigError(
            f"{args.golden} holds no questions", "one JSON object a line: {id, question, video, window, answer}"
        )
    rag = VideoRAG(args.index, config)
    answers, first, whole = answer_all(rag, items, args.method, config.show_progress)
    from ..verify.support import threshold as support_threshold

    threshold = support_threshold(config.generate.verify)
    result = {
        **score_answers(items, answers, threshold),
        "generator": config.generate.backend,
        "method": args.method,
        "by_split": by_group(items, answers, "split", threshold),
        "by_kind": by_group(items, answers, "kind", threshold),
        "first_piece_ms": _ms(first),
        "answer_ms": _ms(whole),
        "answers": answers,
    }
    write_report(
        args, f"answers-{config.generate.backend}", [("Answers", report.answers_table(result))], {"result": result}
    )
    return result


def answer_all(rag, items: list[dict], method: str | None, show_progress: bool = False):
    """(answer dicts, seconds to the first streamed piece, seconds to the whole answer) per item;
    each answer dict also holds the answerability `signals` it was decided on (None: no stage)."""
    from tqdm.auto import tqdm

    answers, first, whole = [], [], []
    for item in tqdm(items, desc="answers", disable=not show_progress):
        start, seen = time.perf_counter(), None
        asked = rag.prepare(item["question"], method)
        for piece in rag.stream(asked):
            if isinstance(piece, str):
                seen = seen or time.perf_counter() - start
            else:
                signals = asked.verdict.signals.to_dict() if asked.verdict is not None else None
                answers.append({**piece.to_dict(), "signals": signals})
        whole.append(time.perf_counter() - start)
        first.append(seen if seen is not None else whole[-1])
    return answers, first, whole


def _ms(seconds: list[float]) -> dict:
    """p50 / p95 of `seconds`, in whole milliseconds."""
    return {
        "p50": round(float(np.percentile(seconds, 50)) * 1000),
        "p95": round(float(np.percentile(seconds, 95)) * 1000),
    }
