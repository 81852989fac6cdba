"""The API docs (/docs: Swagger UI, /redoc: ReDoc) work offline: their scripts and styles come
from the server itself (the fastapi-offline package), never from a CDN, nor ReDoc's logo."""
from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from tests.reliability.media import tiny_videos
from tests.serve.test_browser import CHROMIUM, launch, served
from videorag import Config, VideoRAG
from videorag.embed.hashing import HashingEmbedder
from videorag.serve.app import create_app
from videorag.serve.service import ServeConfig, Service

ASSET = re.compile(r"""(?:src|href|spec-url)=["']([^"']+)["']|url: ["']([^"']+)["']""")
# ReDoc's footer logo ("API docs by Redocly"): an <img> that removes itself when it cannot load
REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
KINDS = {".js": "javascript", ".css": "text/css", ".png": "image/png", ".json": "application/json"}


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("docs")
    tiny_videos(root / "library", 1)
    VideoRAG(root / "index", Config(), embedder=HashingEmbedder()).add([root / "library"])
    return root / "index"


def assets(html: str) -> list[str]:
    return [a or b for a, b in ASSET.findall(html)]


def client_of(index: Path) -> TestClient:
    return TestClient(create_app(Service(VideoRAG(index, Config(), embedder=HashingEmbedder()), ServeConfig(index))),
                      base_url="http://127.0.0.1")


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_docs_pages_load_only_local_assets(index, page):
    client = client_of(index)
    html = client.get(page)
    assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
    urls = assets(html.text)
    assert any(u.endswith(".js") for u in urls) and "/openapi.json" in urls, urls
    assert "http://" not in html.text and "https://" not in html.text  # no CDN, no web fonts
    for url in urls:
        assert url.startswith("/") and not url.startswith("//") and not urlsplit(url).netloc, url
        reply = client.get(url)
        assert reply.status_code == 200, url
        assert KINDS[Path(url).suffix] in reply.headers["content-type"], (url, reply.headers["content-type"])
        assert REDOC_LOGO not in reply.text, url   # the one thing ReDoc's script fetches from outside
    if page == "/docs":
        assert any(u.endswith("swagger-ui-bundle.js") for u in urls) and any(u.endswith(".css") for u in urls)


def test_the_api_docs_give_the_package_version(index):
    assert client_of(index).get("/openapi.json").json()["info"]["version"] == metadata.version("videorag")


@pytest.mark.slow
def test_docs_render_in_a_browser_with_the_outside_network_cut_off(index):
    """Swagger UI lists the operations and ReDoc renders them with every non-local request
    aborted (as on an offline machine); none was attempted."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium (make install-test does)")
    with served(index, token=None) as url, sync_api.sync_playwright() as playwright:
        browser = launch(playwright)
        context = browser.new_context()
        outside: list[str] = []
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(url + "/")
                      else (outside.append(route.request.url), route.abort()))
        page = context.new_page()
        page.set_default_timeout(15_000)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url + "/docs")
        page.wait_for_selector(".opblock")
        paths = page.locator(".opblock-summary-path").all_inner_texts()
        assert "/search" in [p.replace("\u200b", "") for p in paths], paths
        page.goto(url + "/redoc")
        page.wait_for_selector("h2:text-is('Search')")  # ReDoc's section for GET /search
        browser.close()
    assert not outside, f"the docs asked the outside network for {outside}"
    assert not errors, errors
