"""`videorag search` and `ask` handed to a `videorag serve` of the same index running on this
machine (`videorag.serve.running`): its models are loaded already, so the command loads none.
Only what the HTTP API carries can be handed over (the query, --top-k, --method, --moments,
--judge); another option, `--no-server` or $VIDEORAG_NO_SERVER keep the command in
this process, as does a server that cannot be reached."""
from __future__ import annotations

import os
from dataclasses import fields

from ..console import EXIT_OK, print_answer, print_hits, print_json, say
from ..options import CONFIG, make_config
from ..types import Answer, Citation, Claim, Hit

CARRIED = {"search": {"search.top_k", "search.method", "search.judge.enabled"},
           "ask": {"search.method", "search.judge.enabled"}}


def answered_by_server(args) -> int | None:
    """The exit status of the command answered by a running server, None when it is to be
    answered here."""
    from ..serve.running import find, index_key

    given = CONFIG.given(args)
    if args.no_server or os.environ.get("VIDEORAG_NO_SERVER") or not set(given) <= CARRIED[args.command]:
        return None
    served = find(args.index)
    if served is None:
        return None
    method, judge = given.get("search.method"), given.get("search.judge.enabled")
    try:
        if args.command == "search":
            reply = served.search(args.query, make_config(args).search.top_k, method, args.moments, bool(judge))
        else:
            reply = served.ask(args.question, method, judge)
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
    claims = [Claim(c["text"], [n - 1 for n in c["citations"]], c.get("support"), c.get("supported"))
              for c in reply.get("claims", [])]
    return Answer(reply["question"], reply["answer"], [_made(Citation, c) for c in reply["citations"]],
                  reply["generator"], reply.get("judge"), claims, reply.get("abstained", False),
                  reply.get("answerable"))


def _made(kind: type, data: dict):
    """A `Hit` or `Citation` from its JSON, what is there only to be shown (its `span`) left out."""
    return kind(**{f.name: data[f.name] for f in fields(kind) if f.name in data})
