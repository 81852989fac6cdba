"""Screenshots of the web page of `videorag serve` for the docs: the search view with results (the
player opened at the best moment) and the ask view with a streamed answer and its citations.

The demo's narrated how-to videos are rendered (espeak-ng) with a subtitle sidecar written from
their known step times, so no ASR model is needed; they are indexed with the hashing embedder,
served by `videorag serve` in a subprocess and shown in Debian's chromium driven by Playwright
(the same setup as tests/serve/test_browser.py).

Usage: python -m tools.serve_screenshots [--out docs/screenshots] [--width 1280] [--height 800]
(from the repository root: it shares the browser test's helpers). Writes OUT/search.png and OUT/ask.png.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from tests.serve.test_browser import SEEKED, THUMBNAIL, launch, served
from videorag import Config, VideoRAG
from videorag.demo.corpus import SAMPLES
from videorag.demo.render import StepSpan, render
from videorag.embed.hashing import HashingEmbedder

ROOT = Path(__file__).resolve().parents[1]

QUERY = "how do I find where the inner tube is leaking"
QUESTION = "How hot should the water be for coffee?"


def srt(spans: list[StepSpan]) -> str:
    def stamp(t: float) -> str:
        ms = round(t * 1000)
        return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"

    return "\n".join(f"{i}\n{stamp(s.start)} --> {stamp(s.end)}\n{s.text}\n" for i, s in enumerate(spans, 1))


def build(folder: Path) -> Path:
    """The demo's videos, each with its subtitles beside it, indexed; returns the index folder."""
    library = folder / "library"
    library.mkdir(parents=True)
    for howto in SAMPLES:
        video = library / f"{howto.slug}.mp4"
        video.with_suffix(".srt").write_text(srt(render(howto, video)))
    index = folder / "index"
    report = VideoRAG(index, Config(), embedder=HashingEmbedder()).add([library])
    print(report.summary(), file=sys.stderr)
    return index


def hold_still(page, video_id: str, start: float) -> None:
    """Wait for the player to seek to `start`, then pause it exactly there (a stable picture)."""
    page.wait_for_function(SEEKED, arg=[start, video_id])
    page.evaluate("""async (t) => {
        const v = document.querySelector('#player');
        v.pause();
        v.currentTime = t;
        await new Promise((ok) => v.addEventListener('seeked', ok, { once: true }));
        await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
    }""", start)


def search_view(page, out: Path) -> None:
    page.fill("#q", QUERY)
    page.press("#q", "Enter")
    page.wait_for_selector(".card")
    page.wait_for_function(THUMBNAIL)
    page.wait_for_function("() => [...document.querySelectorAll('.card img')].every(i => i.complete)")
    card = page.locator(".card").first
    card.click()
    hold_still(page, card.get_attribute("data-video"), float(card.get_attribute("data-start")))
    page.screenshot(path=str(out), full_page=True)


def ask_view(page, out: Path) -> None:
    page.click("nav a[data-view=ask]")
    page.fill("#ask-q", QUESTION)
    page.click("#ask-form button[type=submit]")
    page.wait_for_selector(".citation")
    page.wait_for_function("() => !document.querySelector('#answer').classList.contains('streaming')")
    link = page.locator(".citation").first
    link.click()
    hold_still(page, link.get_attribute("data-video"), float(link.get_attribute("data-start")))
    page.screenshot(path=str(out), full_page=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=800)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="videorag-screens-") as tmp, served(build(Path(tmp))) as url, \
            sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            for name, take in (("search.png", search_view), ("ask.png", ask_view)):
                page = browser.new_page(viewport={"width": args.width, "height": args.height})
                page.set_default_timeout(20_000)
                page.goto(url + "/")
                take(page, args.out / name)
                page.close()
                print(args.out / name)
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
