"""`videorag eval ...`: retrieval, α sweep, reproduction of the paper's rows, generation, and a
golden set over a user's own index. Its arguments and what the handlers (`commands`) share;
`videorag.eval.dispatch.run` runs a parsed command."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import ConfigError
from ..options import CONFIG, add_set_option
from . import report
from .datasets import DEFAULT_BENCH
from .transcripts import TranscriptCorpusConfig

DEFAULT_OUT = "results"
CACHE = Path(os.environ.get("VIDEORAG_CACHE", "~/.cache/videorag")).expanduser() / "eval"


def bench_dir() -> Path:
    return Path(os.environ.get("VIDEORAG_BENCH", DEFAULT_BENCH))


def add_parser(sub) -> None:
    """`eval` and its subcommands; those that run under a config offer `--set SECTION.FIELD=VALUE`
    (ablations) beside the config options."""
    parser = sub.add_parser("eval", help="evaluate retrieval and generation (VideoRAG paper's bench)")
    ev = parser.add_subparsers(dest="eval_command", required=True)
    for add in (
        _retrieval_args,
        _sweep_args,
        _reproduce_args,
        _generation_args,
        _index_args,
        _answers_args,
        _make_qa_args,
    ):
        add(ev)


def _retrieval_args(ev) -> None:
    p = ev.add_parser("retrieval", help="Recall@k (first-gold and any-gold), nDCG, MRR, latency")
    p.add_argument("--method", default="best", help="bm25 | dense | hybrid | best | all")
    _corpus_args(p, "eval retrieval")


def _sweep_args(ev) -> None:
    p = ev.add_parser("sweep", help="hybrid retrieval for α in 0..1, with a plot (the paper's Fig. 4)")
    p.add_argument("--steps", type=int, default=11)
    _corpus_args(p, "eval sweep")


def _reproduce_args(ev) -> None:
    p = ev.add_parser("reproduce", help="score the paper's shipped predictions beside its Table 1")
    p.add_argument("--bench", type=Path, default=None, help="bench folder (default: ../shared/bench/...)")
    _out_args(p)


def _generation_args(ev) -> None:
    p = ev.add_parser("generation", help="answer queries and score them (ROUGE-L, BLEU-4, ...)")
    p.add_argument(
        "--method",
        default="textvideorag",
        help="naive | oracle | textrag | a retrieval method whose best transcripts the generator "
        "reads (textvideorag, best, ...; default %(default)s)",
    )
    p.add_argument("--documents", type=Path, help="textrag: JSONL {id, text} document corpus")
    p.add_argument("--textrag-retriever", default="bm25", choices=("bm25", "dense"))
    p.add_argument("--judge", default=None, help="G-Eval judge backend (llamacpp | openai)")
    p.add_argument("--judge-model", default=None)
    _corpus_args(p, "eval generation")


def _index_args(ev) -> None:
    p = ev.add_parser("index", help="a golden JSONL set (or V-RAGBench triplets) over your own index")
    p.add_argument("--index", required=True, metavar="DIR")
    p.add_argument("--golden", required=True, type=Path, metavar="FILE")
    p.add_argument("--triplets", action="store_true", help="FILE holds {query, video_id, start, end, answer}")
    p.add_argument(
        "--method",
        dest="methods",
        default="textvideorag",
        metavar="NAME[,NAME...]",
        help="search method(s), comma-separated: one row each (default %(default)s)",
    )
    p.add_argument(
        "--judge",
        default=None,
        help="generation pass rate judged by this generator (llamacpp | openai); --generator answers",
    )
    p.add_argument("--judge-model", default=None)
    _config_args(p, "eval index")
    _out_args(p)


def _answers_args(ev) -> None:
    p = ev.add_parser("answers", help="a golden answer set over your index: key facts, citations, claims, abstention")
    p.add_argument("--index", required=True, metavar="DIR")
    p.add_argument(
        "--golden",
        required=True,
        type=Path,
        metavar="FILE",
        help="JSONL {id, question, video, window, answer (key fact; null: no video answers), reference}",
    )
    p.add_argument("--method", default=None, help="search method (default textvideorag)")
    _config_args(p, "eval answers")
    _out_args(p)


def _config_args(p, command: str, required: tuple[str, ...] = ()) -> None:
    """The config options `command` offers (`videorag.options`; `required`: flags it must be given),
    then `--set`."""
    CONFIG.add(p, command, required)
    add_set_option(p)


def _make_qa_args(ev) -> None:
    p = ev.add_parser(
        "make-qa",
        help="synthetic QA triplets from your index's transcript chunks (for `eval index --triplets`)",
        description="Ask a model for one question and short answer per transcript chunk (up to --per-video "
        "chunks a video, spread over it), keep the pairs whose answer words are in the chunk, "
        "drop near-duplicate questions, and write {id, query, video_id, start, end, answer} "
        "triplets (the window: at most 30 s of the chunk holding the answer). A one-line "
        "summary goes to stderr. Rules: videorag/eval/make_qa.py.",
    )
    p.add_argument("--index", required=True, metavar="DIR")
    _config_args(p, "eval make-qa", required=("--generator",))
    p.add_argument("--per-video", type=int, default=3, help="chunks asked per video (default %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="which chunks are drawn (default %(default)s)")
    p.add_argument("--out", required=True, metavar="FILE", help="JSONL file to write (overwritten); '-' = stdout")
    p.add_argument(
        "--rejects", default=None, metavar="FILE", help="also write the dropped items (reason, reply, chunk) as JSONL"
    )
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")


def _out_args(p) -> None:
    p.add_argument("--out", type=Path, default=None, help=f"write a report folder (e.g. {DEFAULT_OUT}/)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--bertscore-model", default=None, help="add BERTScore with this model (path or hub id; '' = bundled MiniLM)"
    )


def _corpus_args(p, command: str) -> None:
    """The bench corpus (transcripts and queries), the config options, the report."""
    p.add_argument("--transcripts", type=Path, default=None, help="JSONL(.gz) {video_id, text}")
    p.add_argument("--qa", type=Path, default=None, help="a file shaped like wikihow_qa.json")
    p.add_argument("--query-field", default="howto100m_query_text")
    _config_args(p, command)
    p.add_argument("--limit", type=int, default=None, help="first N queries only")
    p.add_argument("--cache-dir", type=Path, default=CACHE, help="where transcript embeddings are cached")
    p.add_argument(
        "--pieces",
        type=int,
        default=TranscriptCorpusConfig.pieces,
        help="opening pieces embedded a transcript (default %(default)s; 1: its first 96 words only)",
    )
    _out_args(p)


def load_corpus(args):
    from .datasets import load_transcripts, load_wikihow_qa

    transcripts = load_transcripts(args.transcripts or bench_dir() / "transcripts.jsonl.gz")
    items = load_wikihow_qa(args.qa or bench_dir() / "wikihow_qa.json", args.query_field)
    if args.limit is not None:
        if args.limit < 1:
            raise ConfigError(f"--limit must be >= 1, got {args.limit}")
        items = items[: args.limit]
    return transcripts, items


def write_report(args, name: str, sections, payload) -> None:
    """The report folder with --out; the tables on stdout unless --json prints the result."""
    if not args.json:
        for title, body in sections:
            print(f"{title}\n\n{body}\n")
    if args.out is not None:
        path = report.write(args.out, name, sections, payload, getattr(args, "argv", []))
        if not args.json:
            print(f"report: {path}")
