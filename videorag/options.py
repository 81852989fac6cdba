"""Command-line options that set config fields, each declared once in a table (`OptionTable`):
its flag, the dotted field(s) it sets, its help and the subcommands offering it (nested ones as
"eval index"). argparse's default is None, so the dataclass's default is the only default (help
shows it where the text says `{default}`) and only what the user gives reaches the config, by
its dotted path. `CONFIG` and `SERVE` hold the options of every `videorag` subcommand;
`REQUESTS` those of `search` and `ask`, made from their request types (`videorag.requests`);
`make_config` and `serve_config` build the configs from a parsed command line."""
from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .config import DEFAULT_ALPHA, ENGINES, FUSIONS, JUDGES, UNSUPPORTED, Config, override, parse_setting, setting
from .console import bar_fits, names, positive_int
from .errors import ConfigError
from .requests import OPERATIONS, Param, params


@dataclass(frozen=True)
class Option:
    """One command-line option and the config field(s) it sets."""

    flag: str                         # e.g. "--top-k"
    paths: tuple[str, ...]            # the dotted fields it sets (most options: one)
    help: str                         # `{default}` stands for the field's default
    commands: tuple[str, ...]         # the subcommands offering it ("eval index": a nested one)
    kind: Mapping = field(default_factory=dict)   # argparse: type, choices (or a function of them), metavar, action
    also: Mapping = field(default_factory=dict)   # fields set to these values with it (--judge-server: generator)
    scale: int = 1                    # the field holds the given value × scale (--max-upload-mb: bytes)
    env: str | None = None            # environment variable giving the value when the flag is not given

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


def option(flag: str, paths: str | tuple[str, ...], help: str, commands: tuple[str, ...], **kind) -> Option:
    """An `Option`; `paths` one dotted field or several; `kind` its argparse keywords, with
    `also`, `scale` and `env` taken out as the option's own."""
    own = {key: kind.pop(key) for key in ("also", "scale", "env") if key in kind}
    return Option(flag, (paths,) if isinstance(paths, str) else paths, help, commands, kind, **own)


@dataclass(frozen=True)
class OptionTable:
    """The options setting the fields of one config dataclass, for every subcommand."""

    key: str                          # namespace attribute: (the parser's options, its command's defaults)
    target: Callable[[], type]        # gives the config dataclass (imported when first needed)
    options: tuple[Option, ...]
    defaults: Mapping[str, Mapping] = field(default_factory=dict)   # {command: {dotted field: default}}
                                      # where a command's own default differs from the dataclass's

    def add(self, parser: argparse.ArgumentParser, command: str, required: tuple[str, ...] = ()) -> None:
        """Offer `command`'s options on its parser; `required`: the flags it must be given."""
        offered = tuple(o for o in self.options if command in o.commands)
        defaults = self.defaults.get(command, {})
        for opt in offered:
            kind = {k: v() if k == "choices" and callable(v) else v for k, v in opt.kind.items()}
            action = parser.add_argument(opt.flag, default=None, help=opt.help, required=opt.flag in required, **kind)
            action.shown_default = lambda opt=opt: self._shown(opt, defaults)  # type: ignore[attr-defined]  # read by console's formatter
        parser.set_defaults(**{self.key: (offered, defaults)})

    def _shown(self, opt: Option, defaults: Mapping[str, object]) -> str:
        path = opt.paths[0]
        value: Any = defaults[path] if path in defaults else setting(self.target(), path)
        if isinstance(value, tuple):
            return ",".join(map(str, value))
        return str(value // opt.scale if opt.scale != 1 else value)

    def given(self, args: argparse.Namespace) -> dict[str, object]:
        """{dotted field: value}: the command's own defaults, then every option given on the
        command line (or by its environment variable)."""
        offered, settings = getattr(args, self.key, ((), {}))
        settings = dict(settings)
        for opt in offered:
            value = getattr(args, opt.dest)
            if value is None and opt.env:
                value = os.environ.get(opt.env)
            if value is not None:
                settings.update({path: value * opt.scale if opt.scale != 1 else value for path in opt.paths})
                settings.update(opt.also)
        return settings


def config_setting(item: str) -> tuple[str, object]:
    """argparse type of `--set`: ("section.field", value), the field checked against `Config`."""
    try:
        return parse_setting(Config, item)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_set_option(parser: argparse.ArgumentParser) -> None:
    """`--set SECTION.FIELD=VALUE` (repeatable): any config field, for experiments and ablations."""
    parser.add_argument("--set", dest="settings", action="append", default=[], type=config_setting,
                        metavar="SECTION.FIELD=VALUE",
                        help="set any config field, after the options above (repeatable; VALUE as JSON "
                             "when it parses, else text), e.g. --set search.carve.rerank=false")


OPENING = ("index", "remove", "check", "info", "optimize", "search", "ask", "train-frame-selector", "serve", "mcp")
WRITING = ("index", "remove", "check", "optimize")
SEARCHING = ("search", "ask", "serve", "mcp")
SERVING = ("serve", "mcp")   # their --method and --judge are the defaults of the requests they answer
RERANKING = (*SEARCHING, "eval index")
ANSWERING = ("ask", "serve", "train-frame-selector", "eval generation", "eval index", "eval answers",
             "eval make-qa")
SERVER_URL = ("ask", "serve", "train-frame-selector", "eval make-qa")
RERANKERS = "e5 (offline; pip install 'videorag[rerank]'), cross-encoder, llm (the judge)"


def _method_names() -> list[str]:
    from .methods import METHODS

    return METHODS.names()


EMBED = (
    option("--embed-backend", ("embed.backend", "embed.query_backend"),
           "text embedder backend (default: {default} to index; queries on its ONNX export when installed); "
           "given, it embeds queries too", OPENING),
    option("--embed-model", "embed.model", "text embedding model: local path or hub id (default: bundled "
           "all-MiniLM-L6-v2)", OPENING),
    option("--wait", "lock_wait", "when another process is writing the index, wait at most this long "
           "(default: until it is done; 0: fail at once)", WRITING, type=float, metavar="SECONDS"),
)
INGEST = (
    option("--fps", "ingest.fps", "frames sampled per second (default {default})", ("index",), type=float),
    option("--asr-model", "ingest.asr_model", "Whisper model: local path or name (default: bundled tiny.en)",
           ("index",)),
    option("--language", "ingest.language", "the videos' language: auto (identified per video: English on tiny.en, "
           "others on a multilingual Whisper, pip install 'videorag[languages]') or a code such as en, es, fr "
           "(default {default})", ("index",), metavar="CODE"),
    option("--translate", "ingest.translate", "also translate speech in another language into English, so "
           "English questions find it (Whisper; about doubles its transcription time; default on)", ("index",),
           action=argparse.BooleanOptionalAction),
    option("--chunk-seconds", "ingest.chunk_seconds", "fixed-window chunk length (default {default})", ("index",),
           type=float),
    option("--visual", "ingest.visual", "also embed frames: clip | siglip | xclip | open-clip", ("index",),
           metavar="BACKEND"),
    option("--visual-model", "ingest.visual_model", "weights for --visual (a local folder or hub id; "
           "random-tiny for tests)", ("index",), metavar="FOLDER_OR_ID"),
    option("--captions", "ingest.captioner", "also caption every sampled frame: ocr (on-screen text, offline) | "
           "openai (a VLM server)", ("index",), metavar="NAME"),
    option("--caption-model", "ingest.caption_model", "ocr: Tesseract language (default eng); openai: the "
           "server's model", ("index",), metavar="MODEL"),
    option("--engine", "ingest.engine", "local: this process; ray: Ray Data actors on a Ray cluster "
           "(pip install 'videorag[ray]') (default {default})", ("index",), choices=ENGINES),
    option("--address", "ingest.ray_address", "--engine ray: the cluster (ray://host:10001, auto); default: "
           "start Ray on this machine", ("index",), metavar="ADDRESS"),
    option("--workers", "ingest.ray_workers", "--engine ray: actors building videos, each loading the models "
           "once (default: one per CPU)", ("index",), type=int, metavar="N"),
    option("--streams", "ingest.streams", "--engine local: videos built at once, each transcribed by its own "
           "model on cores / N threads (default: 2; 1 on one core)", ("index",), type=positive_int, metavar="N"),
    option("--ann-min-rows", "search.ann_min_rows", "levels with this many units get an ANN index "
           "(default {default})", ("optimize",), type=positive_int, metavar="N"),
    option("--ann-compress-rows", "search.ann_compress_rows", "levels with this many units (every indexed "
           "level, once the segments are this many) keep compressed vectors (IVF-PQ; default "
           "{default})", ("optimize",), type=positive_int, metavar="N"),
)
SEARCH = (
    option("--method", "search.method", "retrieval method of the requests naming none: %(choices)s (default "
           "{default}; see docs/methods.md)", SERVING, choices=_method_names, metavar="NAME"),
    option("--visual-alpha", "search.visual_alpha", "videorag-vt: weight of text against frames "
           "(default {default})", (*SEARCHING, "eval index"), type=float),
    option("--fusion", "search.fusion", "how dense and BM25 scores meet (default {default})", SEARCHING,
           choices=FUSIONS),
    option("--alpha", "search.alpha", "weight of dense scores against BM25 in every method fusing them "
           "(default: each method's own, " + ", ".join(f"{m} {a}" for m, a in DEFAULT_ALPHA.items()) + ")",
           (*SEARCHING, "eval retrieval", "eval sweep", "eval generation"), type=float),
    option("--weak-below", "search.weak_below", "mark a hit weak when its best segment's similarity to the "
           "query is below this (default {default}; -1: never)", SEARCHING, type=float, metavar="COSINE"),
)
RERANK = (
    option("--carve-reranker", "search.carve.reranker.backend", "carve: the reranker judging the pooled "
           f"chunks: auto (the judge when installed, else e5), {RERANKERS} (default {{default}})",
           RERANKING, metavar="NAME"),
    option("--moment-reranker", "search.moments.reranker", "a reranker rescoring each video's moments (carve: "
           f"the moment cited inside a chosen chunk): {RERANKERS} (default: none)", RERANKING, metavar="NAME"),
    option("--rerank-model", "search.carve.reranker.model", "the model of --carve-reranker and "
           "--moment-reranker: cross-encoder: its folder or hub id; llm: the judge's model", RERANKING,
           metavar="PATH"),
    option("--rerank-generator", "search.carve.reranker.generator", "llm reranker: the generator that judges "
           "(openai also judges frames; default {default})", RERANKING, choices=JUDGES),
    option("--carve-views", "search.carve.views", "carve: views to pool from (text-clip, text-frame, "
           "visual-frame, visual-clip; default all the index has)", RERANKING, type=names,
           metavar="VIEW[,VIEW...]"),
)
JUDGE = (
    option("--judge", "search.judge.enabled", "for the requests that do not say: a language model reads the best "
           "videos' steps and picks the moments (default: off for search, about 2.5 s a query on 2 cores; on for "
           "ask when its model is installed)", SERVING, action=argparse.BooleanOptionalAction),
    option("--judge-model", "search.judge.reranker.model", "the judge's GGUF file or a model `videorag models` "
           "lists (default Qwen2.5-Coder-1.5B, pip install 'videorag[judge]')", SEARCHING,
           metavar="PATH_OR_NAME"),
    option("--judge-server", "search.judge.reranker.base_url", "judge through an OpenAI-compatible server "
           "instead (its model: --judge-model)", SEARCHING, metavar="URL",
           also={"search.judge.reranker.generator": "openai"}),
)
GENERATE = (
    option("--generator", "generate.backend", "answer generator: auto | extractive | openai | llamacpp "
           "(default {default}: llamacpp with the judge's model when installed, else extractive)",
           (*ANSWERING, "demo")),
    option("--model", "generate.model", "generator model (server model name or GGUF path)", ANSWERING),
    option("--base-url", "generate.base_url", "openai: server URL (default $OPENAI_BASE_URL)", SERVER_URL),
    option("--max-tokens", "generate.max_tokens", "answer length cap, in tokens (default {default})",
           ("eval generation",), type=int),
    option("--videos", "generate.videos", "videos given to the generator (default {default})", ("ask",),
           type=positive_int),
    option("--frames", "generate.frames_per_video", "frames per video (default {default})", ("ask",), type=int),
    option("--verify", "generate.verify.enabled", "check each claim against the moments it cites (default on "
           "when the judge is installed)", ("ask",), action=argparse.BooleanOptionalAction),
    option("--answerability", "generate.verify.answerability", "decide first whether the moments answer the "
           "question, and abstain when they do not (default on)", ("ask",), action=argparse.BooleanOptionalAction),
    option("--abstain-below", "generate.verify.abstain_below", "P(answerable) under which the answer abstains "
           "(default: the fitted threshold)", ("ask",), type=float),
    option("--unsupported", "generate.verify.unsupported", "what to do with a claim its moments do not "
           "support (default {default})", ("ask",), choices=UNSUPPORTED),
)
CONFIG = OptionTable("config_options", lambda: Config, EMBED + INGEST + SEARCH + RERANK + JUDGE + GENERATE, {
    "eval generation": {"generate.max_tokens": 128},   # the bench's answers are short
    "train-frame-selector": {"generate.backend": "openai"},   # its generation labels need a VLM
})


def _serve_config() -> type:
    from .serve.service import ServeConfig

    return ServeConfig


SERVE = OptionTable("serve_options", _serve_config, (
    option("--host", "host", "address to bind (default {default}: this machine only)", ("serve",)),
    option("--port", "port", "port to listen on (default {default})", ("serve",), type=int),
    option("--token", "token", "bearer token for writes (and reads off loopback); default $VIDEORAG_TOKEN",
           ("serve",), env="VIDEORAG_TOKEN"),
    option("--root", "roots", "a folder the index tool and POST /index may read (repeatable; none: uploads "
           "only)", ("serve", "mcp"), action="append", metavar="FOLDER"),
    option("--max-upload-mb", "max_upload_bytes", "largest upload, in MB (default {default})", ("serve",),
           type=positive_int, scale=1 << 20),
    option("--ray", "ray", "search the index's shards (`videorag shard`) as Ray Serve deployments on this Ray "
           "cluster: auto (this machine's), local (start one here) or HOST:PORT; searches only", ("serve",),
           metavar="ADDRESS"),
    option("--shard-replicas", "shard_replicas", "replicas of each shard (default {default})", ("serve",),
           type=positive_int),
    option("--shard-deadline", "shard_deadline", "seconds a search waits for its shards; late ones leave it "
           "partial (default {default})", ("serve",), type=float),
    option("--searches", "searches", "searches run at once; the others wait their turn (default: one per core, "
           "64 with --ray)", ("serve",), type=int),
))


class RequestOptions:
    """The arguments of a command that sends one request (`videorag.requests.OPERATIONS`:
    `search`, `ask`), made from its request type's fields: the text a positional argument, every
    other field a flag (`--top-k N`, `--judge/--no-judge`) with the field's rules and
    description. Given, a field that has a config setting sets it too (`settings`): in this
    process the command line is both the request and the configuration."""

    key = "request_type"

    def add(self, parser: argparse.ArgumentParser, command: str) -> None:
        request_type = OPERATIONS.get(command)
        if request_type is None:
            return
        for param in params(request_type):
            flags, kind = _argument(param)
            parser.add_argument(*flags, help=param.description.replace("%", "%%") + kind.pop("more", ""), **kind)
        parser.set_defaults(**{self.key: request_type})

    def request(self, args: argparse.Namespace):
        """The request the command line makes (None where the command sends none)."""
        request_type = getattr(args, self.key, None)
        if request_type is None:
            return None
        return request_type(**{p.name: getattr(args, p.name) for p in params(request_type)})

    def settings(self, args: argparse.Namespace) -> dict[str, object]:
        """{dotted config field: value} of the request's fields given that have one."""
        request = self.request(args)
        if request is None:
            return {}
        given = request.given()
        return {p.config: given[p.name] for p in params(type(request)) if p.config and p.name in given}


def _argument(param: Param) -> tuple[tuple[str, ...], dict]:
    """(flags, argparse keywords) of a request field."""
    if param.required:
        return (param.name,), {}   # its length is checked where it is read (the pipeline's words)
    if param.kind is bool:
        return (param.flag,), {"action": argparse.BooleanOptionalAction, "default": None}
    if param.kind in (int, float):
        return (param.flag,), {"type": bounded(param.kind, **param.bounds), "default": None, "metavar": "N"}
    if param.choices is not None:
        return (param.flag,), {"choices": param.choices(), "default": None, "metavar": "NAME",
                               "more": "; the valid ones: %(choices)s"}
    return (param.flag,), {"default": None}


def bounded(kind: type = int, ge: float | None = None, le: float | None = None) -> Callable[[str], float]:
    """argparse type: a number of `kind` (int or float) within [ge, le] (either open), else a
    usage error in words."""
    within = f" from {ge} to {le}" if ge is not None and le is not None else \
        f" of at least {ge}" if ge is not None else f" of at most {le}" if le is not None else ""
    expected = ("expected a whole number" if kind is int else "expected a number") + within

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{expected}, got {text!r}") from None
        if (ge is not None and value < ge) or (le is not None and value > le):
            raise argparse.ArgumentTypeError(f"{expected}, got {value}")
        return value

    return parse


REQUESTS = RequestOptions()


def make_config(args: argparse.Namespace) -> Config:
    """The config a command line asks for: the defaults, the command's options (a request's
    among them), then its `--set`s."""
    settings = {"show_progress": bar_fits(), **CONFIG.given(args), **REQUESTS.settings(args),
                **dict(getattr(args, "settings", []))}
    return override(Config(), settings)


def serve_config(args: argparse.Namespace):
    """The server's settings (`videorag.serve.service.ServeConfig`) from `serve` or `mcp`."""
    return override(_serve_config()(args.index), SERVE.given(args))
