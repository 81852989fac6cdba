"""`videorag serve`: an HTTP API, a web page and an MCP server over one warm `VideoRAG`.

`Service` (service.py) is the one place requests meet the pipeline; the FastAPI app (app.py), the
MCP server (mcp.py) and their tests all go through it. A running server says where it listens
(running.py): command lines on its index hand it their questions. Install with `pip install
'videorag[serve]'`.
"""


def run_server(rag, config) -> None:
    """Serve until interrupted (uvicorn, one process; requests run on its thread pool)."""
    from ..registry import require

    uvicorn = require("uvicorn", "serve")
    require("fastapi", "serve")
    from .app import create_app
    from .service import Service

    _open(rag, config)
    if config.ray:  # the rag was made with `live=shard.serving.sharded(...)` (`videorag.cli`)
        shards = len(rag.live.router.clients)
        print(f"searching {shards} shards on Ray ({config.ray}); ask needs the index on one box", flush=True)
    service = Service(rag, config)
    print(f"videorag serving {config.index} on http://{config.host}:{config.port}  (API docs: /docs)", flush=True)
    try:
        uvicorn.run(_announced(create_app(service), config), host=config.host, port=config.port, log_level="warning")
    finally:
        service.close()


def _open(rag, config) -> None:
    """Open the index now (seconds of importing LanceDB), not while the first search's thumbnails
    wait, black; and before the judge loads. A location without an index is refused, as `search`
    and `ask` refuse it (a mistyped --index would serve empty lists), unless the server may write
    (--token): then its first added folder or upload makes the index."""
    from ..index.meta import no_index

    if rag.library.exists():
        _ = rag.library.index
    elif not config.token:
        raise no_index(rag.location, "start the server with --token SECRET --root FOLDER to add videos from its page")
    else:
        print(f"no index at {config.index} yet: the first folder added or video uploaded makes it", flush=True)


def _announced(app, config):
    """`app` saying where it listens (`running.announce`) from its start to its shutdown, SIGTERM
    included (uvicorn shuts down, then ends the process by the signal: no `finally` runs after),
    so `videorag search` and `ask` on its index hand it their questions."""
    import contextlib

    from .running import announce, withdraw

    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(asgi_app):
        path = announce(config)
        try:
            async with inner(asgi_app) as state:
                yield state
        finally:
            withdraw(path)

    app.router.lifespan_context = lifespan
    return app
