"""Why a request did not validate, in one line of words: a body that is missing or is not JSON
says where it breaks and what the route takes (its request model's fields)."""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel


def first_line(exc) -> str:
    """One readable line from a validation error."""
    errors = exc.errors() if hasattr(exc, "errors") else []
    if not errors:
        return str(exc).splitlines()[0]
    e = errors[0]
    where = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
    return f"{where}: {e.get('msg')}" if where else str(e.get("msg"))


def in_words(exc: RequestValidationError, model: type[BaseModel] | None) -> str:
    """One line for a request that does not validate; a body that is missing or is not JSON says
    what the route's `model` takes."""
    first = (exc.errors() or [{}])[0]
    if first.get("type") == "json_invalid":
        return _not_json(first, exc.body, model)
    if first.get("type") == "missing" and tuple(first.get("loc", ())) == ("body",):
        return f"the request has no body; {_expected(model)}"
    return first_line(exc)


def _not_json(error: dict, body: Any, model: type[BaseModel] | None) -> str:
    """A request body that does not parse, in words: why, where, and what the route takes."""
    why = str(error.get("ctx", {}).get("error") or "it does not parse")
    at = error.get("loc", ())[-1:]
    where = _position(body, at[0]) if at and isinstance(at[0], int) else ""
    return f"the request body is not valid JSON ({why[:1].lower()}{why[1:]}{where}); {_expected(model)}"


def _position(body: Any, at: int) -> str:
    """' at line L, column C' of character `at` of `body` (' at character N' without the text)."""
    text = body.decode(errors="replace") if isinstance(body, bytes) else body
    if not isinstance(text, str):
        return f" at character {at}"
    line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)  # as json.JSONDecodeError counts
    return f" at line {line}, column {column}"


def body_model(request: Request) -> type[BaseModel] | None:
    """The request model of the route `request` was sent to (None where it reads its own body)."""
    field = getattr(request.scope.get("route"), "body_field", None)
    model = getattr(getattr(field, "field_info", None), "annotation", None)
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


def _expected(model: type[BaseModel] | None) -> str:
    """What a valid body looks like: a JSON object with the model's required fields, e.g.
    'send a JSON object such as {"question": "..."} (optional fields: method, judge)'."""
    if model is None:
        return "send a JSON object"
    schema = model.model_json_schema()
    fields, required = schema.get("properties", {}), schema.get("required", [])
    example = json.dumps({name: _example(fields[name]) for name in required})
    optional = [name for name in fields if name not in required]
    return f"send a JSON object such as {example}" + (f" (optional fields: {', '.join(optional)})" if optional else "")


def _example(field: dict) -> Any:
    """A placeholder value of a JSON schema field's type."""
    return {"array": ["..."], "boolean": True, "integer": 1, "number": 1.0}.get(field.get("type", ""), "...")
