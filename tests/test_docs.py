"""The README fits on a screen and the docs site builds: its links resolve, and its reference pages,
generated from the code at build time (docs/hooks/reference.py), list every command, route, tool,
option and setting, so a new one cannot be missing from the docs."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from dataclasses import fields, is_dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
LINK = re.compile(r"\]\(([^)\s]+)\)")


def reference():
    """docs/hooks/reference.py, the generator of the reference pages, as a module."""
    spec = importlib.util.spec_from_file_location("docs_reference", REPO / "docs" / "hooks" / "reference.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_is_at_most_12_kb():
    assert README.stat().st_size <= 12_000, f"README.md is {README.stat().st_size} bytes: move the rest into docs/"


def test_the_readme_sets_up_with_two_commands():
    text = README.read_text()
    setup = text[text.index("## Set up on a fresh machine") :]
    block = setup[setup.index("```bash") + len("```bash") : setup.index("```", setup.index("```bash") + 1)]
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands == ["make demo", "make test"], commands


@pytest.mark.parametrize("page", [README, *sorted((REPO / "docs").glob("*.md"))], ids=lambda p: p.name)
def test_relative_links_point_at_files_that_exist(page):
    """On a forge or in an editor (mkdocs checks the site's own links when it builds)."""
    for target in LINK.findall(page.read_text()):
        if "://" in target or target.startswith("#"):
            continue
        path = (page.parent / target.split("#")[0]).resolve()
        assert path.exists(), f"{page.relative_to(REPO)} links to {target}, which does not exist"


def test_the_cli_reference_lists_every_command():
    from videorag.cli.parser import SUBCOMMANDS

    page = reference().cli()
    for command in [*SUBCOMMANDS, "eval", "eval retrieval", "eval index", "eval answers", "finetune", "models", "demo"]:
        assert f"### `videorag {command}`" in page, command
    for flag in ("--top-k", "--moments", "--judge, --no-judge", "--no-server", "--generator", "--assemble"):
        assert flag in page, flag


def test_the_http_reference_lists_every_route():
    pytest.importorskip("fastapi")
    from fastapi.routing import APIRoute

    from videorag.serve.app import create_app

    ref = reference()
    page = ref.http()
    with ref._service() as service:
        routes = [r for r in create_app(service).routes if isinstance(r, APIRoute) and r.include_in_schema]
    assert len(routes) >= 13
    for route in routes:
        for method in route.methods:
            assert f"### `{method} {route.path}`" in page, (method, route.path)
    for model in ("SearchResult", "Answer", "Hit", "Citation", "Claim", "Job", "Chapters", "Error"):
        assert f"### {model}\n" in page, model


def test_the_mcp_reference_lists_every_tool():
    pytest.importorskip("mcp")
    from videorag.serve.mcp import TOOLS

    page = reference().mcp()
    for tool in TOOLS:
        assert f"### `{tool}`" in page, tool
    assert "| `query` |" in page and "| `wait_seconds` |" in page


def test_the_configuration_reference_lists_every_option_and_setting():
    from videorag.config import Config
    from videorag.options import CONFIG, SERVE

    ref = reference()
    page = ref.options()
    for option in (*CONFIG.options, *SERVE.options):
        assert f"| `{option.flag}` |" in page, option.flag
    assert "{default}" not in page and "%(" not in page
    page = ref.settings()

    def sections(config, path):
        for f in fields(config):
            value = getattr(config, f.name)
            if is_dataclass(value):
                yield from sections(value, f"{path}.{f.name}".lstrip("."))
            else:
                yield path or "Config", f.name

    for section, name in sections(Config(), ""):
        part = page[page.index(f"### `{section}`") :]
        end = part.find("\n### ", 1)
        assert f"| `{name}` |" in part[: end if end > 0 else None], f"{section}.{name}"


def test_the_docs_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs")
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for page in ("index", "guide", "cli", "http", "mcp", "configuration", "models", "methods", "scaling", "benchmarks",
                 "ARCHITECTURE"):
        assert (site / f"{page}.html").is_file(), page   # use_directory_urls: false, readable from disk
    assert "videorag eval index" in (site / "cli.html").read_text()
    assert "generated:" not in (site / "http.html").read_text()   # every marker replaced
    remote = re.compile(r"<(?:script|link|img)[^>]+(?:src|href)=\"(?:https?:)?//")
    for page in site.glob("*.html"):
        assert not remote.search(page.read_text()), f"{page.name} loads something from the network"
