"""Handlers of `videorag eval` subcommands; each returns its result dict (or list of them)."""
from __future__ import annotations

import numpy as np

from ..errors import ConfigError
from . import paper, report
from .cli import bench_dir, load_corpus, write_report
from .runner import evaluate_generation, evaluate_retrieval, score_predictions, transcript_evidence
from .transcripts import METHODS, TranscriptIndex, TranscriptIndexConfig


def _transcript_index(args, config, transcripts) -> TranscriptIndex:
    from ..embed import create_embedder

    cfg = TranscriptIndexConfig() if args.alpha is None else TranscriptIndexConfig(alpha=args.alpha)
    return TranscriptIndex(transcripts, create_embedder(config.embed), cfg, args.cache_dir,
                           show_progress=config.show_progress)


def _timing(index: TranscriptIndex) -> str:
    return (f"Indexing {len(index.ids)} transcripts: lexical {index.lexical_seconds:.1f} s, "
            f"dense {index.dense_seconds:.1f} s (0 when cached).")


def cmd_retrieval(args, config):
    transcripts, items = load_corpus(args)
    index = _transcript_index(args, config, transcripts)
    methods = list(METHODS) if args.method == "all" else [args.method]
    results = [evaluate_retrieval(items, lambda it, m=m: index.rank(m, it.query, question=it.question), m,
                                  show_progress=config.show_progress) for m in methods]
    for r in results:
        r["alpha"] = index.config.alpha
    write_report(args, "retrieval", [("Retrieval (first-gold Recall is the paper's definition)",
                                      report.retrieval_table(results)), ("Indexing", _timing(index))],
                 {"results": results})
    return results[0] if len(results) == 1 else results


def cmd_sweep(args, config):
    transcripts, items = load_corpus(args)
    index = _transcript_index(args, config, transcripts)
    sweep = []
    for alpha in np.linspace(0.0, 1.0, args.steps):
        index.config.alpha = float(alpha)
        r = evaluate_retrieval(items, lambda it: index.rank("hybrid", it.query), f"hybrid α={alpha:.1f}")
        r["alpha"] = round(float(alpha), 3)
        sweep.append(r)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        report.plot_sweep(sweep, args.out / "alpha_sweep.png")
    write_report(args, "alpha_sweep", [("Hybrid retrieval vs α", report.retrieval_table(sweep)
                                        + "\n\n![R@k vs α](alpha_sweep.png)")], {"sweep": sweep})
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
    write_report(args, "reproduction", [("Shipped InternVL2.5-8B predictions, re-scored",
                                         report.generation_table(results)),
                                        ("Notes", "\n".join(report.notes(results)) or "–")],
                 {"results": results})
    return results


def _context(args, config, transcripts):
    """The evidence each generation method gives the generator for an item."""
    method = args.method
    if method == "naive":
        return lambda item: []
    if method == "oracle":
        return lambda item: [transcript_evidence(item.relevant[0], transcripts[item.relevant[0]], item.query)]
    if method == "textvideorag":
        index = _transcript_index(args, config, transcripts)
        return lambda item: [transcript_evidence(v, transcripts[v], item.query)
                             for v in index.rank("best", item.query, config.generate.videos, item.question)]
    if method == "textrag":
        if args.documents is None:
            raise ConfigError("textrag needs a document corpus", "pass --documents FILE.jsonl ({id, text} lines)")
        from .datasets import load_transcripts

        docs = load_transcripts(args.documents)
        index = _transcript_index(args, config, docs)
        return lambda item: [transcript_evidence(d, docs[d], item.query)
                             for d in index.rank(args.textrag_retriever, item.query, k=config.generate.videos)]
    raise ConfigError(f"unknown generation method {method!r}", "choose naive | textvideorag | oracle | textrag")


def cmd_generation(args, config):
    from ..config import GenerateConfig
    from ..generate import create_generator

    transcripts, items = load_corpus(args)
    config.generate.backend, config.generate.model = args.generator, args.model
    generator = create_generator(config.generate)
    judge = None
    if args.judge:
        judge_gen = create_generator(GenerateConfig(backend=args.judge, model=args.judge_model))
        if not hasattr(judge_gen, "complete"):
            raise ConfigError(f"generator {args.judge!r} cannot judge", "use --judge llamacpp or openai")
        judge = judge_gen.complete
    result = evaluate_generation(items, _context(args, config, transcripts), generator, args.method,
                                 args.bertscore_model, judge, show_progress=config.show_progress)
    write_report(args, f"generation-{args.method}-{args.generator}",
                 [("Generation", report.generation_table([result])),
                  ("Notes", "\n".join(report.notes([result])) or "–")], {"result": result})
    return result


def cmd_index(args, config):
    from ..pipeline import VideoRAG
    from .datasets import load_golden_jsonl, load_triplets

    items = load_triplets(args.golden) if args.triplets else load_golden_jsonl(args.golden)
    rag = VideoRAG(args.index, config)
    hits = {}

    def rank(item):
        hits[item.query] = rag.search(item.query, top_k=10)
        return [h.video_id for h in hits[item.query]]

    result = evaluate_retrieval(items, rank, config.search.method, show_progress=config.show_progress)
    windowed = [it for it in items if it.windows]
    if windowed:
        per = [_window_hit(it, hits[it.query]) for it in windowed]
        result["window_hit@1"] = round(float(np.mean(per)), 4)
    write_report(args, "index-eval", [("Retrieval over your index", report.retrieval_table([result]))],
                 {"result": result})
    return result


def _window_hit(item, hits) -> float:
    """1 when the top hit is a gold video and its segment overlaps one of the gold windows."""
    if not hits or hits[0].video_id not in item.windows:
        return 0.0
    top = hits[0]
    return float(any(top.start < end and top.end > start for start, end in item.windows[top.video_id]))
