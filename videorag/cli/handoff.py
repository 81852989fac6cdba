"""`videorag search` and `ask` handed to a `videorag serve` of the same index running on this
machine (`videorag.serve.running`): its models are loaded already, so the command loads none.
Only the command's request can be handed over (`videorag.requests`: the query, --top-k,
--method, --moments, --judge), sent as the HTTP API takes it (`http_call`); what it leaves out
the server decides, as for any client (its method, whether it judges). Another option (a config
setting, `--set`), `--no-server` or $VIDEORAG_NO_SERVER keep the command in this process, as
does a server that cannot be reached."""

from __future__ import annotations

import os
import urllib.parse
from dataclasses import fields

from ..console import EXIT_OK, print_answer, print_hits, print_json, say
from ..options import CONFIG, REQUESTS
from ..requests import OPERATIONS, AskRequest, SearchRequest, params
from ..types import Answer, Citation, Claim, Hit

CARRIED = OPERATIONS  # the commands a server can answer: those sending a request
ROUTES = {SearchRequest: ("GET", "/search"), AskRequest: ("POST", "/ask")}  # the HTTP API's, per request


def answered_by_server(args) -> int | None:
    """The exit status of the command answered by a running server, None when it is to be
    answered here."""
    from ..serve.running import find, index_key

    if args.no_server or os.environ.get("VIDEORAG_NO_SERVER") or CONFIG.given(args) or getattr(args, "settings", []):
        return None
    served = find(args.index)
    if served is None:
        return None
    try:
        reply = served.call(*http_call(REQUESTS.request(args)))
    except ConnectionError as exc:
        say(f"the videorag serve at {served.where} did not answer ({exc}); answering here")
        return None
    say(f"answered by the videorag serve at {served.where}")
    if args.json:
        print_json({**reply, "index": index_key(args.index)})
    elif args.command == "search":
        print_hits([_made(Hit, hit) for hit in reply["results"]])
    else:
        print_answer(answer(reply))
    return EXIT_OK


def answer(reply: dict) -> Answer:
    """An answer from its JSON (`Answer.to_dict`)."""
    claims = [
        Claim(
            c["text"],
            [n - 1 for n in c["citations"]],
            c.get("support"),
            c.get("supported"),
            c.get("checks"),
            c.get("flag"),
        )
        for c in reply.get("claims", [])
    ]
    return Answer(
        reply["question"],
        reply["answer"],
        [_made(Citation, c) for c in reply["citations"]],
        reply["generator"],
        reply.get("judge"),
        claims,
        reply.get("abstained", False),
        reply.get("answerable"),
    )


def _made(kind: type, data: dict):
    """A `Hit` or `Citation` from its JSON, what is there only to be shown (its `span`) left out."""
    return kind(**{f.name: data[f.name] for f in fields(kind) if f.name in data})


def http_call(request) -> tuple[str, dict | None]:
    """(route, JSON body) of a request to the HTTP API: a GET's fields in its query string (by
    their wire names, `Param.alias`), a POST's as its body; the fields left out are the server's."""
    verb, route = ROUTES[type(request)]
    given = request.given()
    if verb == "POST":
        return route, given
    query = {p.alias or p.name: _wire(given[p.name]) for p in params(type(request)) if p.name in given}
    return f"{route}?{urllib.parse.urlencode(query)}", None


def _wire(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
