"""The web page in a real browser: Playwright driving Debian's chromium against `videorag serve`
started as a subprocess over a small real index (H.264 videos with subtitle sidecars)."""
from __future__ import annotations

import contextlib
import json
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import httpx
import pytest

from tests.reliability.media import tiny_video
from videorag import Config, VideoRAG
from videorag.embed.hashing import HashingEmbedder
from videorag.types import Answer, Chapter, Citation, Claim, Hit

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


TITLE_ENDS = "(text) => document.querySelector('#player-title').textContent.endsWith(text)"
CLOSED = """() => document.querySelector('#player-panel').hidden
    && !document.querySelector('#player').hasAttribute('src')"""
# Counts the text pieces #answer receives (one per streamed token, one more when it is done).
COUNT_PIECES = """() => {
    window.pieces = 0;
    new MutationObserver((records) => records.forEach((r) => { window.pieces += r.addedNodes.length; }))
        .observe(document.querySelector('#answer'), { childList: true });
}"""
# Records the text of every node #answer receives (each streamed token, then the final answer's parts).
RECORD_ADDED = """() => {
    window.added = [];
    new MutationObserver((records) => records.forEach((r) => r.addedNodes.forEach((n) => {
        window.added.push(n.textContent);
    }))).observe(document.querySelector('#answer'), { childList: true });
}"""
THUMBNAIL = """() => {
    const img = document.querySelector('.card img');
    return img !== null && img.complete && img.naturalWidth > 0;
}"""
THUMBNAILS = """() => {
    const imgs = [...document.querySelectorAll('.card img')];
    return imgs.length > 0 && imgs.every((img) => img.complete && img.naturalWidth > 0);
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
           timeout: float = 60.0, options: tuple[str, ...] = ("--no-judge", "--generator", "extractive"),
           ready: str = "/videos") -> Iterator[str]:
    """`videorag serve` over `index` in a subprocess until the block ends; yields its base URL
    once GET `ready` answers. No judge unless `options` ask for one, and the extractive generator
    (an answer in a second, streamed word by word), whatever this machine has installed."""
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
        _wait_until_up(proc, url, timeout, log, ready)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _wait_until_up(proc: subprocess.Popen, url: str, timeout: float, log: Path, ready: str = "/videos") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"videorag serve exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(url + ready, timeout=5).status_code == 200:
                return
        time.sleep(0.2)
    raise RuntimeError(f"videorag serve did not answer GET {ready} within {timeout} s:\n{log.read_text()[-3000:]}")


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


def ask(page, question: str, cited: bool = True) -> None:
    page.click("nav a[data-view=ask]")
    page.fill("#ask-q", question)
    page.click("#ask-form button[type=submit]")
    if cited:
        page.wait_for_selector(".citation")
    page.wait_for_function("() => !document.querySelector('#answer').classList.contains('streaming')")


def sse_body(*events: tuple[str, object]) -> str:
    return "".join(f"event: {event}\ndata: {json.dumps(data)}\n\n" for event, data in events)


def serve_answer(page, tokens: list[str], answer: dict) -> None:
    """The page's `POST /ask?stream=true` answered with `tokens` streamed, then `answer`."""
    events = [("token", t) for t in tokens] + [("citations", answer["citations"]), ("done", answer)]
    page.route(re.compile(r"/ask\?"), lambda route: route.fulfill(headers={"Content-Type": "text/event-stream"},
                                                                 body=sse_body(*events)))


def answer_json(text: str, citations: list[dict], claims: list[dict], abstained: bool = False) -> dict:
    """The server's JSON of an answer (`Answer.to_dict`: its citations' spans, its parts)."""
    made = Answer("q", text, [Citation(c["video_id"], c["path"], c["start"], c["end"]) for c in citations],
                  "llama-cpp", None, [Claim(c["text"], [n - 1 for n in c["citations"]], c["support"], c["supported"],
                                            flag=c.get("flag")) for c in claims], abstained)
    return made.to_dict()


def serve_search(page, results: list[dict]) -> None:
    """The page's `GET /search` answered with `results` (what a newer or older server may send)."""
    page.route(re.compile(r"/search\?"), lambda route: route.fulfill(json={"query": "q", "results": results}))


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
    assert "0:12–0:13" in card.inner_text() and card.locator(".time").inner_text() == best["span"]

    card.click()
    page.wait_for_function(SEEKED, arg=[start, best["video_id"]])
    assert page.eval_on_selector("#player", "v => v.duration") == pytest.approx(30, abs=0.5)


def test_the_first_search_after_the_server_starts_shows_its_thumbnails_at_once(browser, corpus):
    """The server opens its frame store (the index) before it answers: the first search's
    thumbnails do not wait the seconds of importing LanceDB and opening the tables, black
    meanwhile (a second visit found them in the browser's cache). Nothing but GET /methods, which
    reads no index, is asked before the search, as the page itself asks."""
    root, index = corpus
    with served(index, ready="/methods") as url:
        context, page, errors = _open(browser, url)
        search(page, QUERY)
        start = time.monotonic()
        page.wait_for_function(THUMBNAILS)
        waited = time.monotonic() - start
        context.close()
    assert waited < 1.0, f"the first search's thumbnails came {waited:.1f} s after its cards"
    assert not errors, errors


def test_ask_streams_the_answer_and_citations_seek_the_player(page, server):
    expected = httpx.post(f"{server}/ask", json={"question": QUESTION}, timeout=30).json()

    with httpx.stream("POST", f"{server}/ask", params={"stream": "true"}, json={"question": QUESTION},
                      timeout=30) as response:  # the default (extractive) generator streams word by word
        tokens = [line for line in response.iter_lines() if line == "event: token"]
    assert len(tokens) >= 3, tokens

    page.evaluate(COUNT_PIECES)
    ask(page, QUESTION)
    assert page.inner_text("#answer").strip() == expected["answer"].strip()
    shown = page.locator("#answer .claim").all_inner_texts()
    assert shown == ["".join(p["text"] for p in expected["parts"] if p["claim"] == n)   # each claim's parts
                     for n in range(1, len(expected["claims"]) + 1)]
    unmarked = [re.sub(r"\s*\[\d+\]", "", t) for t in shown]
    assert unmarked == [c["text"] for c in expected["claims"]]   # each claim's span, its [n] markers in it
    assert page.locator("#answer .unsupported").count() == 0  # no judge: not verified, nothing marked
    assert page.evaluate("() => window.pieces") >= 3  # it arrived in pieces, not as one block
    links = page.locator(".citation")
    assert links.count() == len(expected["citations"]) >= 1
    clips = page.locator("#citations .clip")   # each citation can be downloaded as an MP4
    assert clips.count() == links.count() and clips.first.get_attribute("download") == ""
    href = clips.first.evaluate("a => a.href")
    asked = parse_qs(urlparse(href).query)
    assert float(asked["start"][0]) == expected["citations"][0]["start"]
    clip = page.request.get(href)
    assert clip.ok and clip.headers["content-type"] == "video/mp4" and len(clip.body()) > 1000

    for i, cited in enumerate(expected["citations"][:2]):  # the second one seeks a video already loaded
        assert float(links.nth(i).get_attribute("data-start")) == cited["start"]
        links.nth(i).click()
        page.wait_for_function(SEEKED, arg=[cited["start"], cited["video_id"]])


def test_a_new_search_or_question_closes_the_previous_player(page):
    search(page, QUERY)
    page.locator(".card").first.click()
    page.wait_for_selector("#player-panel", state="visible")
    page.fill("#q", "sharpen a kitchen knife")
    page.press("#q", "Enter")
    page.wait_for_function(CLOSED)

    ask(page, QUESTION)
    page.locator(".citation").first.click()
    page.wait_for_selector("#player-panel", state="visible")
    page.click("#ask-form button[type=submit]")
    page.wait_for_function(CLOSED)


def test_the_player_title_follows_the_playback_position(page):
    search(page, QUERY)
    card = page.locator(".card").first
    start = float(card.get_attribute("data-start"))
    card.click()
    page.wait_for_function(SEEKED, arg=[start, card.get_attribute("data-video")])
    assert page.inner_text("#player-title") == f"video-0.mp4 · 0:{int(start):02d}"

    page.evaluate("() => { const v = document.querySelector('#player'); v.pause(); v.currentTime = 21.6; }")
    page.wait_for_function(TITLE_ENDS, arg="· 0:21")
    page.evaluate("() => { const v = document.querySelector('#player'); v.muted = true; v.play(); }")
    page.wait_for_function(TITLE_ENDS, arg="· 0:23")  # it plays on, and the title with it


def test_the_page_shows_each_moment_as_the_server_writes_it(page):
    """A moment's time is the server's `span` (`types.span`: floor to ceiling), shown as it is."""
    moments = [(25.4, 29.2, "0:25–0:30"), (3599.5, 3600.2, "59:59–1:00:01"), (3725.0, 3730.0, "1:02:05–1:02:10")]
    hits = [Hit(f"v{i}", f"/media/v{i}.mp4", start, end, 0.5, "a moment").to_dict()
            for i, (start, end, _) in enumerate(moments)]
    assert [hit["span"] for hit in hits] == [shown for _, _, shown in moments]
    hits[0]["span"] = "from 25 s to 30 s"   # whatever the server writes: the page computes no time itself
    serve_search(page, hits)
    search(page, "anything")
    assert page.locator(".card .time").all_inner_texts() == [hit["span"] for hit in hits]
    assert page.get_attribute(".card", "aria-label") == "v0.mp4 at from 25 s to 30 s"

    cited = {"video_id": "v0", "path": "/media/v0.mp4", "start": 25.4, "end": 29.2}
    answer = answer_json("Let it dry [1].", [cited], [{"text": "Let it dry.", "citations": [1], "support": None,
                                                      "supported": None}])
    assert answer["citations"][0]["span"] == "0:25–0:30"
    answer["citations"][0]["span"] = "twenty-five seconds in"
    serve_answer(page, ["Let ", "it dry [1]."], answer)
    ask(page, "anything?")
    assert page.locator(".citation .time").all_inner_texts() == ["twenty-five seconds in"]
    assert page.get_attribute("#answer a.marker", "title") == "v0.mp4 twenty-five seconds in"


def test_search_leaves_the_number_of_results_to_the_server(page):
    asked: list[str] = []
    page.route(re.compile(r"/search\?"), lambda route: (asked.append(route.request.url), route.fulfill(json={
        "query": "q", "results": [Hit("v", "/media/v.mp4", 1, 2, 0.5, "a moment").to_dict()]})))
    search(page, "anything")
    page.check("#moments")
    page.press("#q", "Enter")
    page.wait_for_function("() => document.querySelector('#search-status').textContent === '1 result'")
    assert len(asked) == 2 and all("top_k" not in url for url in asked), asked
    assert "moments=false" in asked[0] and "moments=true" in asked[1]


def cited_moments(server: str) -> list[dict]:
    """Two moments of the served videos, far enough in for a seek to show: video-0 at 12 s, video-1 at 20 s."""
    videos = {Path(v["path"]).name: v for v in httpx.get(f"{server}/videos").json()}
    return [{"video_id": videos[name]["video_id"], "path": videos[name]["path"], "start": start, "end": start + 1}
            for name, start in (("video-0.mp4", 12.0), ("video-1.mp4", 20.0))]


def test_the_final_answer_replaces_the_stream_marks_unsupported_claims_and_its_markers_seek(page, server):
    cited = cited_moments(server)
    answer = answer_json("Boil the water in a kettle [1]. Juggle three oranges while it heats [2].", cited, [
        {"text": "Boil the water in a kettle.", "citations": [1], "support": 0.91, "supported": True},
        {"text": "Juggle three oranges while it heats.", "citations": [2], "support": 0.12, "supported": False,
         "flag": "not_said"}])
    draft = "A draft sentence the final answer left out."
    serve_answer(page, ["Boil the water in a kettle [1]. ", "Juggle three oranges while it heats [2]. ", draft], answer)
    page.evaluate(RECORD_ADDED)
    ask(page, "how do I boil water?")
    assert draft in page.evaluate("() => window.added")  # it was streamed, then replaced
    assert page.inner_text("#answer") == f"{answer['answer']} unsupported"

    claims = page.locator("#answer .claim")
    assert claims.all_inner_texts() == ["Boil the water in a kettle [1].",
                                        "Juggle three oranges while it heats [2]. unsupported"]
    supported, unsupported = claims.nth(0), claims.nth(1)
    assert supported.get_attribute("title") is None and supported.locator(".badge").count() == 0
    assert supported.evaluate("s => getComputedStyle(s).textDecorationLine") == "none"
    assert unsupported.get_attribute("title") == "its cited moments do not say this (support 0.12)"
    assert unsupported.evaluate("s => getComputedStyle(s).textDecorationStyle") == "dotted"
    assert unsupported.locator(".badge.unsupported").is_visible()

    markers = page.locator("#answer a.marker")
    assert markers.all_inner_texts() == ["[1]", "[2]"] and page.locator(".citation").count() == 2
    for marker, moment in zip(markers.all(), cited):
        marker.click()
        page.wait_for_function(SEEKED, arg=[moment["start"], moment["video_id"]])


def test_a_claim_its_moment_says_beside_the_question_is_marked_off_the_question(page):
    cited = [{"video_id": "v0", "path": "/media/v0.mp4", "start": 25.4, "end": 29.2}]
    answer = answer_json("Boil it [1]. Kettles whistle [1].", cited, [
        {"text": "Boil it.", "citations": [1], "support": 0.9, "supported": True, "flag": None},
        {"text": "Kettles whistle.", "citations": [1], "support": 0.1, "supported": False, "flag": "off_question"}])
    serve_answer(page, ["Boil it. Kettles whistle."], answer)
    ask(page, "how long do I boil it?")
    assert page.inner_text("#answer") == "Boil it [1]. Kettles whistle [1]. off the question"
    assert page.get_attribute("#answer .unsupported", "title") == (
        "its cited moment says this, but it may not answer the question (support 0.10)")


def test_an_answer_that_abstained_says_the_videos_do_not_cover_it(page):
    serve_answer(page, ["NOT COVERED"], answer_json("The videos do not cover this.", [], [], abstained=True))
    ask(page, "how do I juggle?", cited=False)
    assert page.inner_text("#answer") == "The videos do not cover this. not covered by these videos"
    badge = page.locator("#answer .badge.not-covered")
    assert badge.is_visible() and badge.get_attribute("title") == "nothing in the indexed videos answers this question"
    assert page.eval_on_selector("#answer", "a => getComputedStyle(a).fontStyle") == "italic"
    assert page.locator("#citations li").count() == 0 and page.inner_text("#ask-status") == "No sources (llama-cpp)."

    older = {"question": "q", "answer": "Let it dry [1].", "generator": "extractive", "judge": None,
             "citations": [{"video_id": "v0", "path": "/media/v0.mp4", "start": 25.4, "end": 29.2}]}
    serve_answer(page, ["Let it dry [1]."], older)  # an older server's answer: no claims, shown as it is
    ask(page, "how long does it dry?")
    assert page.get_attribute("#answer", "class") == "" and page.inner_text("#answer") == "Let it dry [1]."
    assert page.locator("#answer .claim, #answer a.marker").count() == 0


def test_the_answer_is_shown_in_the_servers_parts_not_cut_by_the_page(page):
    """The claims' words are the server's `parts`, wherever they fall: here mid-sentence, where no
    sentence split would cut (and the server's claim text, the markers aside, is not the words)."""
    cited = [{"video_id": "v0", "path": "/media/v0.mp4", "start": 25.4, "end": 29.2}]
    answer = answer_json("Boil it, then juggle [1].", cited, [
        {"text": "Boil it,", "citations": [1], "support": 0.9, "supported": True},
        {"text": "then juggle.", "citations": [1], "support": None, "supported": False}])
    assert [p["claim"] for p in answer["parts"]] == [1, None, 2, 2, 2]
    serve_answer(page, ["Boil it, then juggle."], answer)
    ask(page, "how?")
    assert page.inner_text("#answer") == "Boil it, then juggle [1]. unsupported"
    assert page.locator("#answer .claim").all_inner_texts() == ["Boil it,", "then juggle [1]. unsupported"]
    assert page.get_attribute("#answer .unsupported", "title") == "its cited moments do not say this"
    assert page.get_attribute("#answer a.marker", "data-start") == "25.4"

    answer["parts"] = [{"text": "Boil it, then ", "claim": None, "citations": []},
                       {"text": "juggle ", "claim": 1, "citations": []},
                       {"text": "[1]", "claim": 1, "citations": [1]},
                       {"text": ".", "claim": None, "citations": []}]
    serve_answer(page, ["Boil it, then juggle."], answer)
    ask(page, "how?")
    assert page.locator("#answer .claim").all_inner_texts() == ["juggle [1]"]   # as the parts say, nothing else
    assert page.locator("#answer a.marker").all_inner_texts() == ["[1]"]


def test_a_weak_match_is_marked(page, server):
    results = httpx.get(f"{server}/search", params={"q": QUERY}).json()["results"]
    weak = [hit["weak"] for hit in results]
    assert weak[0] is False and True in weak, results  # the best moment, then others below the floor
    search(page, QUERY)
    cards = page.locator(".card")
    assert [cards.nth(i).locator(".badge.weak").count() == 1 for i in range(len(results))] == weak
    badge = cards.nth(weak.index(True)).locator(".badge.weak")
    assert badge.is_visible() and badge.inner_text() == "weak match"
    assert badge.get_attribute("title") == "below the relevance floor: may not be about your question"
    assert "weak match" in cards.nth(weak.index(True)).get_attribute("aria-label")

    serve_search(page, [{k: v for k, v in hit.items() if k != "weak"} for hit in results])  # an older server
    page.fill("#q", "older server")
    page.press("#q", "Enter")
    page.wait_for_function("() => document.querySelector('#search-status').textContent.endsWith('results')")
    assert cards.count() == len(results) and page.locator(".badge").count() == 0


def test_the_job_view_shows_the_file_its_stage_and_the_time_left(page):
    """Scripted job snapshots (a newer server's `stage` and `eta_seconds`, and an older one's
    without them), answered in place of `POST /index` and the job's endpoints."""
    job = {"id": "j1", "paths": ["/media/more"], "state": "queued", "done": 0, "total": 2, "current": None,
           "files": [], "summary": None, "error": None}
    running = {**job, "state": "running", "current": "/media/more/a.mp4", "stage": "transcribe", "eta_seconds": 65}
    now = [running]  # what GET /jobs/j1 answers (the page polls it once the event stream has ended)
    page.route(re.compile(r"/index$"), lambda route: route.fulfill(status=202, json=job))
    page.route(re.compile(r"/jobs/j1/events$"), lambda route: route.fulfill(
        headers={"Content-Type": "text/event-stream"}, body=sse_body(("progress", job), ("progress", running))))
    page.route(re.compile(r"/jobs/j1$"), lambda route: route.fulfill(json=now[0]))
    page.click("nav a[data-view=library]")
    page.fill("#add-paths", "/media/more")
    page.click("#add-form button[type=submit]")
    current = page.locator(".job[data-job=j1] .current")
    current.filter(has_text="transcribe").wait_for()
    assert current.inner_text() == "indexing /media/more/a.mp4 — transcribe — about 1 min left"

    now[0] = {**running, "done": 1, "current": "/media/more/b.mp4", "stage": "embed", "eta_seconds": 3720}
    current.filter(has_text="embed").wait_for()
    assert current.inner_text() == "indexing /media/more/b.mp4 — embed — about 1 h 2 min left"
    now[0] = {**job, "state": "running", "done": 1, "current": "/media/more/b.mp4"}  # no stage, no ETA
    current.filter(has_text=re.compile(r"^indexing /media/more/b\.mp4$")).wait_for()
    now[0] = {**job, "state": "done", "done": 2, "stage": None, "eta_seconds": None, "summary": "2 added"}
    page.locator(".job[data-job=j1] .state-done").wait_for()
    assert current.count() == 0 and "left" not in page.inner_text(".job[data-job=j1]")


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


def test_the_method_picker_is_fully_visible_and_usable_on_a_phone(browser, server):
    context, page, errors = _open(browser, server, viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True)
    try:
        page.wait_for_function("() => document.querySelector('#method').options.length > 1")
        box = page.locator("#method").bounding_box()
        assert box["width"] >= 120 and box["height"] >= 36, box  # a tap target, as tall as the search box
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        assert page.evaluate("""() => { const s = document.querySelector('#method'), r = s.getBoundingClientRect();
            return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === s; }""")
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


def test_the_players_chapters_are_listed_and_a_click_plays_from_there(page, server):
    """A video's chapters (`GET /videos/{id}/chapters`) beside the player: each its start and title,
    a click seeks there, the one playing marked; a video of one chapter shows no list."""
    search(page, QUERY)
    card = page.locator(".card").first
    video = card.get_attribute("data-video")
    card.click()
    page.wait_for_function(SEEKED, arg=[float(card.get_attribute("data-start")), video])
    real = httpx.get(f"{server}/videos/{video}/chapters").json()
    assert len(real["chapters"]) == 1 and page.locator("#chapters").is_hidden()  # a 30-s video: one chapter

    page.locator("#player-close").click()
    chapters = [Chapter(0, 10, "Fill the kettle").to_dict(), Chapter(10, 20, "Boil").to_dict(),
                Chapter(20, 30, "<b>Pour</b>").to_dict()]
    page.route(re.compile(r"/chapters$"), lambda route: route.fulfill(json={**real, "chapters": chapters}))
    card.click()
    page.wait_for_function("() => !document.querySelector('#chapters').hidden")
    items = page.locator("#chapters li")
    shown = [" ".join(text.split()) for text in items.all_inner_texts()]
    assert shown == ["0:00 Fill the kettle", "0:10 Boil", "0:20 <b>Pour</b>"]  # a title is text, never markup
    items.nth(2).locator("button").click()
    page.wait_for_function(SEEKED, arg=[20.0, video])
    page.wait_for_function("() => document.querySelector('#chapters li.current')?.dataset.start === '20'")
