"""mkdocs hook: the reference pages, generated from the code at build time so they cannot go stale.

A page holds a marker, `<!-- generated: NAME -->`, which is replaced by the markdown of
`GENERATORS[NAME]`: `cli` (the argparse parser of `videorag`), `http` (the FastAPI app's OpenAPI
schema: its routes, their parameters and the response models), `mcp` (the MCP server's tools, their
arguments and output schemas), `options` (the option table, `videorag.options`) and `settings`
(every field of `videorag.config.Config`, its default and the comment beside it in config.py).

A link from a page to a file of the repository outside docs/ (`../results/…`: clickable where the
markdown is read, on a forge or an editor) is checked to exist and shown as the path in code, since
the site cannot hold it; a missing one fails the strict build.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import tempfile
import tokenize
import types
from contextlib import contextmanager
from dataclasses import fields, is_dataclass
from pathlib import Path

log = logging.getLogger("mkdocs.hooks.reference")  # under "mkdocs": a warning fails `--strict`
MARKER = re.compile(r"<!-- generated: ([a-z]+) -->")
LINK = re.compile(r"\[([^\]]+)\]\((\.\./[^)\s#]+)(#[^)\s]*)?\)")
WIDTH = 100  # usage lines wrap here, whatever the terminal


def on_page_markdown(markdown: str, page, config, files) -> str:
    markdown = MARKER.sub(lambda m: _generate(m.group(1), page), markdown)
    return LINK.sub(lambda m: _outside(m, page, config), markdown)


def _generate(name: str, page) -> str:
    if name not in GENERATORS:
        raise ValueError(f"{page.file.src_path}: unknown marker `generated: {name}`; known: {', '.join(GENERATORS)}")
    return GENERATORS[name]()


def _outside(match: re.Match, page, config) -> str:
    """A link leaving docs/: kept as its text and the path in code when the file exists."""
    text, target = match.group(1), match.group(2)
    docs = Path(config["docs_dir"])
    path = (docs / page.file.src_path).parent.joinpath(target).resolve()
    root = docs.parent.resolve()
    if not path.exists() or root not in path.parents:
        log.warning("%s links to %s, which is not in the repository", page.file.src_path, target)
        return match.group(0)
    shown = path.relative_to(root).as_posix()
    named = text.strip("`").rstrip("/") in (shown, shown.removesuffix("/README.md"))
    return f"`{shown}`" if named else f"{text} (`{shown}`)"


def cell(text: object) -> str:
    """`text` as one markdown table cell: one line, its pipes and HTML escaped outside code spans."""
    parts = " ".join(str(text).split()).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code spans
        parts = ["`".join(parts)]
    for i in range(0, len(parts), 2):
        parts[i] = parts[i].replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace("*", "\\*")
    return "`".join(parts)


def table(header: tuple[str, ...], rows: list[tuple]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


# -- the command line ---------------------------------------------------------------------------
def cli() -> str:
    from videorag.cli.parser import build_parser

    parser = build_parser()
    out = [parser.description or "", ""]
    for prog, sub, help in _commands(parser):
        out += [f"### `{prog}`", "", help or "", "", "```text", _usage(sub), "```", ""]
        rows = [
            (_flags(a), _help(sub, a))
            for a in sub._actions
            if a.help != argparse.SUPPRESS and not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
        ]
        out += [table(("argument", "what it does"), rows) if rows else "", ""]
    return "\n".join(out)


def _commands(parser: argparse.ArgumentParser, prefix: str = "videorag"):
    """(prog, its parser, its help) of every subcommand, nested ones (`videorag eval index`) after
    their parent."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {c.dest: c.help for c in action._choices_actions}
            for name, sub in action.choices.items():
                yield f"{prefix} {name}", sub, helps.get(name)
                yield from _commands(sub, f"{prefix} {name}")


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = parser.formatter_class(prog=parser.prog, width=WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _flags(action: argparse.Action) -> str:
    return f"`{argparse.HelpFormatter('videorag')._format_action_invocation(action)}`"


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    if not action.help:
        return ""
    return parser.formatter_class(prog=parser.prog)._expand_help(action)


# -- the HTTP API ---------------------------------------------------------------------------------
@contextmanager
def _service():
    """What the app and the MCP server read while they are made: the server's settings alone (a
    route's work happens only when it is called), over an empty folder."""
    from videorag.serve.service import ServeConfig

    with tempfile.TemporaryDirectory(prefix="videorag-docs-") as index:
        yield types.SimpleNamespace(config=ServeConfig(index))


def http() -> str:
    from videorag.serve.app import create_app

    with _service() as service:
        spec = create_app(service).openapi()
    out = [_operation(method, path, op) for path, ops in spec["paths"].items() for method, op in ops.items()]
    out += ["## Response and request models", ""]
    for name, schema in spec["components"]["schemas"].items():
        out += [f"### {name}", "", schema.get("description", ""), "", _properties(schema), ""]
    return "\n".join(out)


def _operation(method: str, path: str, op: dict) -> str:
    """One route: what it does, its parameters, its body, its replies."""
    out = [f"### `{method.upper()} {path}`", "", op.get("description") or op.get("summary", ""), ""]
    params = [
        (
            f"`{p['name']}`",
            p["in"],
            _type(p["schema"]),
            "yes" if p.get("required") else "",
            p.get("description") or p["schema"].get("description", ""),
        )
        for p in op.get("parameters", [])
    ]
    if params:
        out += [table(("parameter", "in", "type", "required", "what"), params), ""]
    for kind, body in op.get("requestBody", {}).get("content", {}).items():
        out += [f"Body (`{kind}`): {_type(body['schema'])}", ""]
        if "$ref" not in body["schema"]:
            out += [_properties(body["schema"]), ""]
    for status, reply in op["responses"].items():
        shapes = ", ".join(f"`{k}` {_type(v.get('schema', {}))}".rstrip() for k, v in reply.get("content", {}).items())
        out.append(f"- **{status}**: {reply.get('description', '')}" + (f" — {shapes}" if shapes else ""))
    return "\n".join(out) + "\n"


def _properties(schema: dict) -> str:
    required = set(schema.get("required", ()))
    rows = [
        (f"`{name}`", _type(p), "yes" if name in required else "", p.get("description", ""))
        for name, p in schema.get("properties", {}).items()
    ]
    return table(("field", "type", "required", "what"), rows) if rows else "(none)\n"


def _type(schema: dict) -> str:
    """A JSON schema in a few words: `integer (1–100)`, `list of Hit`, `string or null`."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](http.md#{name.lower()})"
    if "anyOf" in schema:
        return " or ".join(_type(s) for s in schema["anyOf"])
    kind = schema.get("type", "any")
    if kind == "array":
        kind = f"list of {_type(schema.get('items', {}))}"
    elif schema.get("format") == "binary":
        kind = "file"
    low = schema.get("minimum", schema.get("minLength", schema.get("minItems")))
    high = schema.get("maximum", schema.get("maxLength", schema.get("maxItems")))
    if low is not None or high is not None:
        kind += f" ({'' if low is None else low}–{'' if high is None else high})"
    if schema.get("default") is not None:
        kind += f", default {json.dumps(schema['default'])}"
    return kind


# -- MCP --------------------------------------------------------------------------------------------
def mcp() -> str:
    from videorag.serve.mcp import INSTRUCTIONS, create_mcp

    with _service() as service:
        tools = asyncio.run(create_mcp(service).list_tools())
    out = ["The server's instructions to the agent:", "", f"> {INSTRUCTIONS}", ""]
    for tool in tools:
        hints = tool.annotations
        access = "reads only" if hints and hints.read_only_hint else "writes (over HTTP: the server's token)"
        out += [f"### `{tool.name}`", "", tool.description or "", "", f"Access: {access}.", ""]
        out += [_properties(tool.input_schema).replace("| field |", "| argument |"), ""]
        if tool.output_schema:
            out += [
                f"Returns `{tool.output_schema.get('title')}` as structured content, the HTTP API's JSON "
                "(and text an agent can quote):",
                "",
                _properties(tool.output_schema),
                "",
            ]
    return "\n".join(out)


# -- options and settings -------------------------------------------------------------------------
def options() -> str:
    from videorag.options import CONFIG, SERVE

    out = []
    for title, option_table in (
        ("Options that set `Config` fields", CONFIG),
        ("Options of `serve` and `mcp` (`ServeConfig`)", SERVE),
    ):
        rows = [
            (f"`{o.flag}`", ", ".join(f"`{p}`" for p in o.paths), ", ".join(o.commands), _option_help(o, option_table))
            for o in option_table.options
        ]
        out += [f"### {title}", "", table(("option", "sets", "commands", "what"), rows), ""]
    return "\n".join(out)


def _option_help(opt, option_table) -> str:
    """The option's help as `--help` shows it: `{default}` its field's default, `%(choices)s` the choices."""
    from videorag.config import setting

    default = setting(option_table.target(), opt.paths[0])
    if isinstance(default, tuple):
        default = ",".join(map(str, default))
    elif opt.scale != 1 and default is not None:
        default //= opt.scale
    choices = opt.kind.get("choices")
    choices = ", ".join(choices() if callable(choices) else choices or ())
    return opt.help.replace("{default}", str(default)).replace("%(choices)s", choices)


def settings() -> str:
    from videorag import config as module

    comments = _comments(Path(module.__file__))
    out = []
    for path, section in _sections(module.Config(), "Config"):
        kind = type(section)
        values = {f.name: getattr(section, f.name) for f in fields(section)}
        rows = [
            (f"`{f.name}`", f"`{f.type}`", f"`{values[f.name]!r}`", comments.get((kind.__name__, f.name), ""))
            for f in fields(section)
            if not is_dataclass(values[f.name])
        ]
        doc = kind.__doc__ or ""
        doc = "" if doc.startswith(kind.__name__ + "(") else " ".join(doc.split())  # dataclass's own: its signature
        out += [
            f"### `{path}`",
            "",
            f"`{kind.__name__}`. {doc}".strip(),
            "",
            table(("field", "type", "default", "what"), rows),
            "",
        ]
    return "\n".join(out)


def _sections(section, path: str):
    """(dotted path, the default's section) of `Config` and every section inside it."""
    yield path, section
    for f in fields(section):
        inner = getattr(section, f.name)
        if is_dataclass(inner):
            yield from _sections(inner, f.name if path == "Config" else f"{path}.{f.name}")


def _comments(source: Path) -> dict[tuple[str, str], str]:
    """{(class, field): the comment beside the field and the comment lines right under it}."""
    lines = source.read_text().splitlines()
    with source.open("rb") as handle:
        by_row = {
            t.start[0]: t.string.lstrip("# ").strip()
            for t in tokenize.tokenize(handle.readline)
            if t.type == tokenize.COMMENT
        }
    found, current = {}, None
    for row, line in enumerate(lines, 1):
        if m := re.match(r"class (\w+)", line):
            current = m.group(1)
        elif current and (m := re.match(r"    (\w+): ", line)) and row in by_row:
            text, more = [by_row[row]], row + 1
            while more in by_row and lines[more - 1].lstrip().startswith("#"):
                text.append(by_row[more])
                more += 1
            found[current, m.group(1)] = " ".join(text)
    return found


GENERATORS = {"cli": cli, "http": http, "mcp": mcp, "options": options, "settings": settings}
