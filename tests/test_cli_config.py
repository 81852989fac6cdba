"""Settings declared once: every command-line option reaches the config field it claims to set,
`--set` reaches any field, and one α reaches every method fusing dense with BM25."""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest

from videorag.cli import main
from videorag.cli.parser import build_parser
from videorag.config import DEFAULT_ALPHA, Config, ConfigError, SearchConfig, apply_overrides, setting
from videorag.console import positive_int
from videorag.finetune.cli import TRAIN, train_config
from videorag.options import CONFIG, SERVE, make_config, serve_config

# the fewest arguments each subcommand needs beside the option under test
BASE = {
    "index": ["index", "v.mp4"], "remove": ["remove", "x"], "check": ["check"], "info": ["info"],
    "optimize": ["optimize"], "search": ["search", "q"], "ask": ["ask", "q"], "serve": ["serve"], "mcp": ["mcp"],
    "train-frame-selector": ["train-frame-selector", "--qa", "qa.jsonl"], "demo": ["demo"],
    "finetune": ["finetune", "--bench", "--out", "m"],
    "eval retrieval": ["eval", "retrieval"], "eval sweep": ["eval", "sweep"], "eval generation": ["eval", "generation"],
    "eval index": ["eval", "index", "--index", "i", "--golden", "g"],
    "eval answers": ["eval", "answers", "--index", "i", "--golden", "g"],
    "eval make-qa": ["eval", "make-qa", "--index", "i", "--generator", "llamacpp", "--out", "o"],
}
NEEDS = {"--caption-model": ["--captions", "ocr"]}   # fields valid only beside another
TEXT = {"--host": "localhost", "--carve-views": "text-frame", "--language": "es"}
BUILD = {CONFIG.key: make_config, SERVE.key: serve_config, TRAIN.key: train_config}
CASES = [(table, opt, command) for table in (CONFIG, SERVE, TRAIN) for opt in table.options for command in opt.commands]


def _sample(opt, default) -> list[str]:
    """Command-line words giving `opt` a value other than `default`."""
    kind = opt.kind
    if kind.get("action") is argparse.BooleanOptionalAction:
        return ["--no-" + opt.flag[2:]] if default is True else [opt.flag]
    if "choices" in kind:
        choices = kind["choices"]() if callable(kind["choices"]) else kind["choices"]
        return [opt.flag, next(c for c in choices if c != default)]
    number = kind.get("type")
    if number is float:
        return [opt.flag, str(default / 2 if default else 0.5)]
    if number in (int, positive_int):
        value = default // opt.scale + 1 if isinstance(default, int) else 3
        return [opt.flag, str(value)]
    return [opt.flag, TEXT.get(opt.flag, "x-value")]


def _expected(args, opt, actual):
    given = getattr(args, opt.dest)
    given = given * opt.scale if opt.scale != 1 else given
    if opt.flag == "--root":
        return tuple(Path(r).resolve() for r in given)
    return tuple(given) if isinstance(actual, tuple) else given


@pytest.mark.parametrize("table, opt, command", CASES,
                         ids=[f"{command}:{opt.flag}" for _, opt, command in CASES])
def test_every_option_reaches_the_field_it_claims(table, opt, command):
    parse, build = build_parser().parse_args, BUILD[table.key]
    default = build(_with_index(parse(BASE[command])))   # with the command's own defaults
    args = _with_index(parse(BASE[command] + NEEDS.get(opt.flag, []) + _sample(opt, setting(default, opt.paths[0]))))
    built = build(args)
    for path in opt.paths:
        actual = setting(built, path)
        assert actual == _expected(args, opt, actual), path
        assert actual != setting(default, path), f"{path}: the sample value is the default"
    for path, value in opt.also.items():
        assert setting(built, path) == value


def _with_index(args):
    if getattr(args, "index", None) is None:
        args.index = "ix"
    return args


def test_the_commands_own_defaults_and_the_dataclass_defaults_are_the_only_ones():
    parse = build_parser().parse_args
    assert make_config(parse(["search", "q"])).search == SearchConfig()
    assert make_config(parse(["eval", "generation"])).generate.max_tokens == 128   # that command's own
    assert make_config(parse(["train-frame-selector", "--qa", "q"])).generate.backend == "openai"
    assert make_config(parse(["ask", "q"])).generate.backend == "auto"


def test_set_reaches_nested_fields_after_the_options():
    args = build_parser().parse_args(["eval", "index", "--index", "i", "--golden", "g", "--visual-alpha", "0.2",
                                      "--set", "search.carve.rerank=false", "--set", 'search.carve.views=["text-clip"]',
                                      "--set", "search.visual_alpha=0.9", "--set", "ingest.asr=123"])
    config = make_config(args)
    assert config.search.carve.rerank is False and config.search.carve.views == ("text-clip",)
    assert config.search.visual_alpha == 0.9 and config.ingest.asr == "123"   # text stays text


@pytest.mark.parametrize("item, said", [
    ("search.nope=1", "unknown setting `search.nope` (the fields of `search`: method, "),
    ("nope=1", "unknown setting `nope` (the fields of `Config`: ingest, embed, search"),
    ("search.carve=1", "`search.carve` is a section, not a value (set one of its fields: views, pool"),
    ("search.top_k=many", "`search.top_k` takes a int (like 5), got 'many'"),
    ("search.top_k", "expected SECTION.FIELD=VALUE"),
])
def test_a_bad_set_is_a_one_line_usage_error(item, said, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["eval", "index", "--index", "i", "--golden", "g", "--set", item])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and "(see videorag eval index --help)" in err


def test_overrides_copy_and_validate_the_config():
    config = Config()
    changed = apply_overrides(config, ["search.judge.candidates=4", "search.visual_alpha=1", "lock_wait=2"])
    assert changed.search.judge.candidates == 4 and changed.lock_wait == 2
    assert changed.search.visual_alpha == 1.0 and isinstance(changed.search.visual_alpha, float)
    assert config.search.judge.candidates == 5   # a copy
    with pytest.raises(ConfigError, match="`judge.candidates` must be > 0"):
        apply_overrides(config, ["search.judge.candidates=0"])
    with pytest.raises(ConfigError, match="`search.top_k` is a value, not a section"):
        apply_overrides(config, ["search.top_k.x=1"])


@pytest.mark.parametrize("flag", ["--no-rerank", "--no-choose", "--rerank"])
def test_ablations_are_no_user_options(flag, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["search", "q", flag, *(["e5"] if flag == "--rerank" else [])])
    err = capsys.readouterr().err   # unrecognized; --rerank: ambiguous between --rerank-model and -generator
    assert stop.value.code == 2 and flag in err and err.count("\n") == 1


def test_help_shows_the_dataclass_default(capsys):
    with pytest.raises(SystemExit):
        main(["search", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "how many results (default: the configured search.top_k, 5)" in out and "(default auto)" in out
    assert "textvideorag 0.6, hybrid 0.5, best 0.5" in out


TRANSCRIPTS = {
    "paint": "grow tomatoes in a painting, acrylic on canvas, brush and palette",
    "garden": "how to grow tomatoes, seedlings in rich soil, water them every morning",
    "bread": "how to bake sourdough bread, feed the starter and knead the dough",
    "soil": "rich soil for the garden: compost, mulch and water, then plant seedlings",
}


@pytest.mark.parametrize("method", sorted(DEFAULT_ALPHA))
def test_one_alpha_reaches_every_method_fusing_dense_with_bm25(method):
    from videorag.embed.hashing import HashingEmbedder
    from videorag.eval.transcripts import TranscriptCorpusConfig, transcript_corpus
    from videorag.methods import create_method
    from videorag.retrieve import Searcher

    embedder = HashingEmbedder()
    searcher = Searcher(transcript_corpus(TRANSCRIPTS, embedder, TranscriptCorpusConfig(segment_words=6)), embedder)

    def scores(alpha):
        config = SearchConfig(alpha=alpha)
        return np.asarray(create_method(method, config).rank(searcher.context("grow tomatoes in soil", config)).videos)

    assert np.array_equal(scores(None), scores(DEFAULT_ALPHA[method]))   # unset: the method's own default
    assert not np.allclose(scores(0.0), scores(1.0))                      # set: it changes the ranking
