"""The web page in a real browser: Playwright driving Debian's chromium against `videorag serve`
started as a subprocess over a small real index (H.264 videos with subtitle sidecars)."""
from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.reliability.media import tiny_video
from videorag import Config, VideoRAG
from videorag.embed.hashing import HashingEmbedder

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
TOKEN = "browser-s3cret"
HOSTILE = "<img src=x onerror=window.pwned=1>.mp4"  # a file name the page must show as text
# The subtitles are "step {i} to {topic} (video {seed})", one per second: this query's best
# moment is 12 s into video-0, far enough in for a seek to be visible.
QUERY = "step 12 to boil water in a kettle"
QUESTION = "how do I boil water in a kettle at step 12?"
# The player shows `video` within 1 s of `start`, got there by seeking: it did not play up to it.
SEEKED = """([start, video]) => {
    const v = document.querySelector('#player'), ranges = [];
    for (let i = 0; i < v.played.length; i++) ranges.push([v.played.start(i), v.played.end(i)]);
    const playedInto = ranges.some(([a, b]) => a < start - 1 && b >= start - 1);
    return v.readyState >= 1 && !v.seeking && v.dataset.video === video && Math.abs(v.currentTime - start) < 1
        && !playedInto;
}"""
THUMBNAIL = """() => {
    const img = document.querySelector('.card img');
    return img !== null && img.complete && img.naturalWidth > 0;
}"""


def build_library(root: Path, count: int = 3, seconds: int = 30) -> Path:
    """`count` videos of `seconds` (topic by seed) plus one with a hostile name, indexed; the index dir."""
    library = root / "library"
    library.mkdir(parents=True, exist_ok=True)
    for seed in range(count):
        tiny_video(library / f"video-{seed}.mp4", seconds=seconds, seed=seed)
    tiny_video(library / HOSTILE, seconds=6, seed=count)
    index = root / "index"
    report = VideoRAG(index, Config(), embedder=HashingEmbedder()).add([library])
    assert not report.partial, report.summary()
    return index


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def served(index: Path, root: Path | None = None, token: str | None = TOKEN,
           timeout: float = 60.0, options: tuple[str, ...] = ("--no-judge",)) -> Iterator[str]:
    """`videorag serve` over `index` in a subprocess until the block ends; yields its base URL.
    No judge unless `options` ask for one (whatever this machine has installed)."""
    port = free_port()
    command = [sys.executable, "-m", "videorag.cli", "serve", "--index", str(index), "--port", str(port),
               "--embed-backend", "hashing", *options]
    command += ["--token", token] if token else []
    command += ["--root", str(root)] if root else []
    log = index.parent / f"serve-{port}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(proc, url, timeout, log)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _wait_until_up(proc: subprocess.Popen, url: str, timeout: float, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"videorag serve exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"{url}/videos", timeout=5).status_code == 200:
                return
        time.sleep(0.2)
    raise RuntimeError(f"videorag serve did not answer GET /videos within {timeout} s:\n{log.read_text()[-3000:]}")


def launch(playwright):
    """Debian's chromium, headless; --no-sandbox because the tests run as root."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"], headless=True)


# -- fixtures -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("browser")
    return root, build_library(root)


@pytest.fixture(scope="module")
def server(corpus) -> Iterator[str]:
    root, index = corpus
    with served(index, root=root) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium (make install-test does)")
    with sync_api.sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


def _open(browser, server: str, **context_options):
    context = browser.new_context(**context_options)
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text)  # a refused request is the page's to report
            if msg.type == "error" and not msg.text.startswith("Failed to load resource") else None)
    page.goto(server + "/")
    return context, page, errors


@pytest.fixture()
def page(browser, server):
    """A fresh page on the server's `/`; uncaught script errors or console errors fail the test."""
    context, page, errors = _open(browser, server)
    yield page
    context.close()
    assert not errors, f"the page logged errors: {errors}"


def search(page, query: str) -> None:
    page.fill("#q", query)
    page.press("#q", "Enter")
    page.wait_for_selector(".card")


# -- tests -----------------------------------------------------------------------------------
def test_search_card_shows_the_moment_and_opens_the_player_there(page, server):
    best = httpx.get(f"{server}/search", params={"q": QUERY}).json()["results"][0]
    assert best["path"].endswith("video-0.mp4") and best["start"] > 3, best  # else the seek proves nothing

    search(page, QUERY)
    page.wait_for_function(THUMBNAIL)
    card = page.locator(".card").first
    assert card.get_attribute("data-video") == best["video_id"]
    start = float(card.get_attribute("data-start"))
    assert start == best["start"]
    assert "video-0.mp4" in card.inner_text() and best["text"] in card.inner_text()
    assert "0:12–0:13" in card.inner_text()

    card.click()
    page.wait_for_function(SEEKED, arg=[start, best["video_id"]])
    assert page.eval_on_selector("#player", "v => v.duration") == pytest.approx(30, abs=0.5)


def test_ask_streams_the_answer_and_citations_seek_the_player(page, server):
    expected = httpx.post(f"{server}/ask", json={"question": QUESTION}, timeout=30).json()

    page.click("nav a[data-view=ask]")
    page.fill("#ask-q", QUESTION)
    page.click("#ask-form button[type=submit]")
    page.wait_for_selector(".citation")
    page.wait_for_function("() => !document.querySelector('#answer').classList.contains('streaming')")
    assert page.inner_text("#answer").strip() == expected["answer"].strip()
    links = page.locator(".citation")
    assert links.count() == len(expected["citations"]) >= 1

    for i, cited in enumerate(expected["citations"][:2]):  # the second one seeks a video already loaded
        assert float(links.nth(i).get_attribute("data-start")) == cited["start"]
        links.nth(i).click()
        page.wait_for_function(SEEKED, arg=[cited["start"], cited["video_id"]])


def test_server_text_is_shown_as_text_never_as_markup(page):
    search(page, "sharpen a kitchen knife")
    card = page.locator(".card", has_text=HOSTILE).first
    assert card.locator(".name").inner_text() == HOSTILE
    assert card.locator("img").count() == 1  # only the thumbnail: the name made no element
    assert page.evaluate("() => window.pwned") is None


def test_library_indexes_a_folder_and_an_upload_with_live_progress(page, corpus, tmp_path):
    root, _ = corpus
    (root / "more").mkdir()
    tiny_video(root / "more" / "extra.mp4", seconds=6, seed=4)
    silent = tiny_video(tmp_path / "silent.mp4", seconds=6, seed=5, srt=False)  # no audio, no subtitles
    page.click("nav a[data-view=library]")
    page.wait_for_selector("#library li")
    before = page.locator("#library li").count()
    assert "0:30" in page.locator("#library li", has_text="video-0.mp4").inner_text()

    page.fill("#add-paths", str(root / "more"))
    page.click("#add-form button[type=submit]")  # no token yet: refused, and the page says so
    page.wait_for_function("() => document.querySelector('#write-status').textContent.includes('401')")

    page.click("header summary")
    page.fill("#token", TOKEN)
    assert page.evaluate("() => localStorage.getItem('videorag.token')") == TOKEN
    page.click("#add-form button[type=submit]")
    page.locator(".job .state-done").first.wait_for(timeout=60_000)
    assert "1 added" in page.locator(".job").first.inner_text()
    page.wait_for_function(f"() => document.querySelectorAll('#library li').length === {before + 1}")
    assert page.locator("#library li", has_text="extra.mp4").count() == 1

    page.set_input_files("#upload-file", str(silent))  # stored and indexed; the file's failure is listed
    page.click("#upload-form button[type=submit]")
    page.wait_for_function("() => document.querySelectorAll('.job .state-done').length === 2", timeout=60_000)
    assert "no audio track and no subtitles" in page.locator(".job").first.locator(".error").inner_text()


def test_phone_width_has_no_horizontal_scroll(browser, server):
    context, page, errors = _open(browser, server, viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True)
    try:
        search(page, QUERY)
        page.locator(".card").first.click()
        page.wait_for_function("() => document.querySelector('#player').readyState >= 1")
        for view in ("search", "ask", "library"):
            page.click(f"nav a[data-view={view}]")
            widths = page.evaluate("() => [document.scrollingElement.scrollWidth, innerWidth]")
            assert widths[1] == 390 and widths[0] <= widths[1], (view, widths)
        assert not errors, errors
    finally:
        context.close()



def test_the_judge_toggles_reach_the_server(browser, corpus):
    """With a judge configured (here an OpenAI-compatible judge double), the page shows its
    toggles (search: off, ask: on), and a judged search reaches the judge."""
    import threading
    from http.server import ThreadingHTTPServer

    from tests.rerank.test_backends import _Judge

    judge = ThreadingHTTPServer(("127.0.0.1", 0), _Judge)
    judge.bodies, judge.lock, judge.refuse_logprobs = [], threading.Lock(), False
    threading.Thread(target=judge.serve_forever, daemon=True).start()
    root, index = corpus
    options = ("--judge-server", f"http://127.0.0.1:{judge.server_port}/v1", "--judge-model", "judge-double")
    try:
        with served(index, root=root, options=options) as url:
            context, page, errors = _open(browser, url)
            page.wait_for_function("() => !document.querySelector('#judge').closest('label').hidden")
            assert not page.is_checked("#judge") and page.is_checked("#ask-judge")
            page.check("#judge")
            search(page, QUERY)
            assert page.locator(".card").count() >= 1 and judge.bodies   # the judge read the steps
            assert {b["model"] for b in judge.bodies} == {"judge-double"}
            context.close()
            assert not errors, errors
    finally:
        judge.shutdown()
        judge.server_close()
