"""What a client asks of one operation, one type per operation (`OPERATIONS`): `SearchRequest`,
`AskRequest`. Each field is declared here once — its type, its default, its description and its
bounds — and every way in is derived from it: the HTTP routes' parameters and the MCP tools'
arguments (`videorag.schemas.request_model`, `signature`), the command line's options
(`videorag.options.REQUESTS`), the CLI's handoff to a running server (`videorag.cli.handoff`).
The service passes the fields on by name (`given()`: `VideoRAG.search(**fields)`), so a field's
name is the pipeline's keyword argument.

A field left None is not asked for: the configuration decides (its `config` setting: the
server's for the HTTP API and MCP; on the command line the option sets it too, as it always
has). Only the text is required. Plain dataclasses: no pydantic on the command line's path (it
would cost every CLI search about 75 ms); the serving side, which loads it anyway, derives its
models from `params`.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from types import NoneType, UnionType
from typing import Any

from .config import TEXT_LIMIT

TOP_K_LIMIT = 100  # results one search may ask for
METHOD = (
    "retrieval method by name (default: the configured search.method, {default}); an unknown name is "
    "an error listing the valid ones"
)
JUDGE = (
    "a language model reads the best videos' steps and picks the moments (slower: about 2.5 s a query "
    "on 2 cores); default: the configured search.judge.enabled, "
)


def text(description: str, alias: str | None = None) -> Any:
    """The request's text: required, 1 to TEXT_LIMIT characters. `alias`: its name in a URL's
    query string where that differs (GET /search?q=)."""
    return field(
        metadata={"description": description, "bounds": {"min_length": 1, "max_length": TEXT_LIMIT}, "alias": alias}
    )


def option(
    description: str,
    *,
    config: str | None = None,
    bounds: dict | None = None,
    choices: Callable[[], list[str]] | None = None,
) -> Any:
    """A field a request may leave out (None). `description` may say `{default}`: the default of
    the `config` setting (dotted, `search.top_k`) that decides when it is left out; `bounds`:
    pydantic's names (ge, le); `choices`: gives the valid values (the command line checks them
    at once; elsewhere the registry's error lists them)."""
    return field(
        default=None,
        metadata={"description": description, "config": config, "bounds": bounds or {}, "choices": choices},
    )


def _method_names() -> list[str]:
    from .methods import METHODS

    return METHODS.names()


def _method() -> Any:
    return option(METHOD, config="search.method", choices=_method_names)


@dataclass(frozen=True)
class SearchRequest:
    """A search: the best videos (each at its best moment), or with `moments` the best moments."""

    query: str = text("what to look for, in plain words", alias="q")
    top_k: int | None = option(
        "how many results (default: the configured search.top_k, {default})",
        config="search.top_k",
        bounds={"ge": 1, "le": TOP_K_LIMIT},
    )
    method: str | None = _method()
    moments: bool | None = option(
        "the best moments across the collection (several per video) instead of the "
        "best videos, each at its best moment (default: off)"
    )
    judge: bool | None = option(JUDGE + "else off", config="search.judge.enabled")

    def given(self) -> dict[str, Any]:
        return given(self)


@dataclass(frozen=True)
class AskRequest:
    """A question, answered from the best moments with citations."""

    question: str = text("a question about the videos")
    method: str | None = _method()
    judge: bool | None = option(JUDGE + "else on when the judge's model is installed", config="search.judge.enabled")

    def given(self) -> dict[str, Any]:
        return given(self)


OPERATIONS = {"search": SearchRequest, "ask": AskRequest}  # the operation (command, tool, route) -> its request


def given(request) -> dict[str, Any]:
    """{field: value} of the fields the request sets (not None): the keyword arguments of the
    pipeline's call, which has its own default for each one left out."""
    return {f.name: value for f in fields(request) if (value := getattr(request, f.name)) is not None}


@dataclass(frozen=True)
class Param:
    """One field of a request type, as the derivations read it."""

    name: str
    annotation: Any  # the declared type (`int | None`)
    kind: type  # the value's type without None: str, int, bool
    required: bool
    description: str  # `{default}` filled in
    bounds: dict  # pydantic's names: min_length, max_length, ge, le
    config: str | None  # the setting deciding when it is left out
    alias: str | None
    choices: Callable[[], list[str]] | None

    @property
    def flag(self) -> str:
        """Its command-line option (`--top-k`)."""
        return "--" + self.name.replace("_", "-")


def params(request_type: type) -> list[Param]:
    """The fields of a request type (`SearchRequest`), in order."""
    hints = typing.get_type_hints(request_type)
    return [_param(f, hints[f.name]) for f in fields(request_type)]


def _param(f, annotation) -> Param:
    meta = f.metadata
    kinds = (
        [t for t in typing.get_args(annotation) if t is not NoneType]
        if isinstance(annotation, UnionType)
        else [annotation]
    )
    description = meta["description"]
    if meta.get("config") and "{default}" in description:
        from .config import Config, setting

        description = description.replace("{default}", str(setting(Config, meta["config"])))
    return Param(
        f.name,
        annotation,
        kinds[0],
        f.default is not None,
        description,
        dict(meta["bounds"]),
        meta.get("config"),
        meta.get("alias"),
        meta.get("choices"),
    )
