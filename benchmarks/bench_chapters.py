"""Chapter benchmark: are a long recording's topics found where they change, and named?

The moment benchmark's long recordings (benchmarks/moments/: ~10-minute livestream-style videos,
an intro that names every topic, a sponsor read, 6–9 topics with off-topic chatter between some
of them, a recap; three DEV, three TEST) and its short how-tos, indexed with the defaults (the
moment benchmark's cached index). Chapters are found from each video's stored segments and
vectors with the shipped `videorag.chapters.chapters_of`, exactly as ingest finds them.

- boundary recall: for each pair of consecutive topics, a chapter starts between the end of the
  first and the start of the second (the chatter between them), `--tolerance` seconds either
  side (also reported at 0 and 10 s);
- chapters / true: chapters found over topics (≤ 2 wanted), mean and worst recording;
- intro alone: recordings whose intro (greeting, list of topics, sponsor) is a chapter of its own;
- titles that name the topic: each chapter is matched to the topic it overlaps most (chapters
  mostly chatter or intro are not judged) and its title (a) shares a content-word stem with the
  topic's slide heading or key ("Sharp focus" / focus), (b) is closer (MiniLM) to that heading
  than to any other topic's of the recording;
- short how-tos: one chapter each;
- overviews: `ask` "Give me an overview of the <recording's title>" and "What does the <title>
  cover?": the answer is of the right video, the share of its chapters cited, and the share of
  its true topics covered (a topic is covered when a cited span overlaps it more than any other
  part of the recording);
- cost: the chapter stage's share of ingest time, on a fresh ingest of the long recordings
  (skipped with --no-cost).

    python -m benchmarks chapters [--tolerance 5] [--no-cost] [--results results/chapters]
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from videorag import VideoRAG
from videorag.chapters import chapters_of
from videorag.embed import embed_long
from videorag.analysis import tokenize

from .bench_moments import golden, moment_rag
from .driver import ROOT, revision, write_report, write_results
from .moments.corpus import SPLITS, recordings

NOTES = "## Beside it"
ASIDE = ("intro", "sponsor", "announcements", "outro")  # parts that are no topic (nor are chat-*)


def options(parser) -> None:
    parser.add_argument("--tolerance", type=float, default=5.0, help="seconds a boundary may miss the gap by")
    parser.add_argument("--no-cost", action="store_true", help="skip the fresh ingest that times the chapter stage")
    parser.add_argument("--results", type=Path, default=ROOT / "results" / "chapters")


def topical(key: str) -> bool:
    return key not in ASIDE and not key.startswith("chat")


def truth(recording, spans: list) -> list[tuple[str, str, float, float]]:
    """(key, heading, start, end) of each part of the recording, from its rendered spans."""
    parts, at = [], 0
    for part in recording.parts:
        parts.append((part.key, part.heading, spans[at][0], spans[at + len(part.lines) - 1][1]))
        at += len(part.lines)
    return parts


def stored(rag: VideoRAG, video_id: str) -> tuple[list, np.ndarray]:
    """A video's segments and their vectors as the index holds them."""
    index = rag.library.index
    units = sorted((u for u in index.units({video_id}).to_pylist() if u["kind"] == "segment"), key=lambda u: u["idx"])
    return index.segments(video_id), np.array([u["vector"] for u in units], np.float32)


def recall(starts: list[float], parts: list, tolerance: float) -> tuple[int, int]:
    """(boundaries found, boundaries) between consecutive topics."""
    topics = [p for p in parts if topical(p[0])]
    pairs = list(zip(topics, topics[1:]))
    found = sum(any(a[3] - tolerance <= t <= b[2] + tolerance for t in starts) for a, b in pairs)
    return found, len(pairs)


def judged_titles(chapters, parts, heading_vectors: dict, embed) -> list[dict]:
    """Each chapter mostly about one topic, its title and whether it names that topic."""
    topics = [p for p in parts if topical(p[0])]
    rows = []
    titles = embed([c.title or "-" for c in chapters])
    for chapter, vector in zip(chapters, titles):
        best = max(parts, key=lambda p: min(chapter.end, p[3]) - max(chapter.start, p[2]))
        if not topical(best[0]):
            continue
        shares = bool(set(tokenize(chapter.title)) & set(tokenize(f"{best[1]} {best[0]}")))
        nearest = max(topics, key=lambda p: float(vector @ heading_vectors[p[1]]))
        rows.append(
            {
                "title": chapter.title,
                "topic": best[1],
                "shares_a_word": shares,
                "nearest_heading": nearest[1] == best[1],
            }
        )
    return rows


def measure(rag: VideoRAG, gold, tolerance: float) -> dict:
    """Chapters of every recording from the index, scored against its parts."""
    index = rag.library.index
    ids = {Path(r["path"]).stem: r["video_id"] for r in index.videos(["video_id", "path"]).to_pylist()}
    embedder = rag.library.embedder
    embed = lambda texts: embed_long(embedder, texts)  # noqa: E731
    out = []
    for recording in recordings():
        spans = json.loads((gold.videos / f"{recording.slug}.spans.json").read_text())["spans"]
        segments, vectors = stored(rag, ids[recording.slug])
        start = time.perf_counter()
        chapters = chapters_of(segments, vectors, spans[-1][1], embed)
        seconds = time.perf_counter() - start
        parts = truth(recording, spans)
        row = {
            "slug": recording.slug,
            "split": recording.split,
            "kind": recording.kind,
            "seconds": round(seconds, 3),
            "duration": round(spans[-1][1], 1),
            "chapters": [c.to_dict() for c in chapters],
        }
        if recording.kind == "long":
            headings = [p[1] for p in parts if topical(p[0])]
            heading_vectors = dict(zip(headings, embed(headings)))
            row |= {
                "topics": len(headings),
                "parts": [list(p) for p in parts],
                "recall": {str(t): recall([c.start for c in chapters], parts, t) for t in (0.0, tolerance, 10.0)},
                "intro_alone": any(
                    0 < c.start < parts[[p[0] for p in parts].index(_first_topic(parts))][2] - tolerance
                    for c in chapters
                ),
                "titles": judged_titles(chapters, parts, heading_vectors, embed),
            }
        out.append(row)
        print(recording.slug, [(round(c.start), c.title) for c in chapters], file=sys.stderr)
    return {"recordings": out}


OVERVIEWS = ("Give me an overview of the {title}", "What does the {title} cover?")


def overviews(rag: VideoRAG, result: dict) -> None:
    """Each long recording's overview questions asked; their figures added to its row."""
    for row in (r for r in result["recordings"] if r["kind"] == "long"):
        title = next(r.title for r in recordings() if r.slug == row["slug"])
        row["overviews"] = []
        for template in OVERVIEWS:
            answer = rag.ask(template.format(title=title[:1].lower() + title[1:]))
            cited = [(c.start, c.end) for c in answer.citations if Path(c.path).stem == row["slug"]]
            about = {max(row["parts"], key=lambda p: _overlap(span, (p[2], p[3])))[0] for span in cited}
            covered = [p[0] in about for p in row["parts"] if topical(p[0])]
            row["overviews"].append({
                "question": answer.question, "right_video": bool(cited) and len(cited) == len(answer.citations),
                "chapters_cited": round(len(set(cited)) / len(row["chapters"]), 3),
                "topics_covered": round(float(np.mean(covered)), 3), "abstained": answer.abstained})


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> float:
    return max(0.0, min(a[1], b[1]) - max(a[0], b[0]))


def _first_topic(parts) -> str:
    return next(p[0] for p in parts if topical(p[0]))


def summary(result: dict, tolerance: float) -> dict:
    """Per split: the figures of the table."""
    out = {}
    for split in SPLITS:
        long = [r for r in result["recordings"] if r["split"] == split and r["kind"] == "long"]
        short = [r for r in result["recordings"] if r["split"] == split and r["kind"] == "short"]
        titles = [t for r in long for t in r["titles"]]
        ratios = [len(r["chapters"]) / r["topics"] for r in long]
        out[split] = {
            "recordings": len(long),
            "boundaries": sum(r["recall"][str(tolerance)][1] for r in long),
            **{
                f"recall@{t:g}s": round(
                    sum(r["recall"][str(t)][0] for r in long) / sum(r["recall"][str(t)][1] for r in long), 3
                )
                for t in (0.0, tolerance, 10.0)
            },
            "chapters/true": round(float(np.mean(ratios)), 2),
            "worst chapters/true": round(max(ratios), 2),
            "intro alone": sum(r["intro_alone"] for r in long),
            "titles judged": len(titles),
            "title shares a word": round(float(np.mean([t["shares_a_word"] for t in titles])), 3),
            "title nearest its heading": round(float(np.mean([t["nearest_heading"] for t in titles])), 3),
            "short: one chapter": f"{sum(len(r['chapters']) == 1 for r in short)} of {len(short)}",
            **_overview_figures([o for r in long for o in r.get("overviews", [])]),
            "ms per 10 min": round(1000 * sum(r["seconds"] for r in long) / sum(r["duration"] for r in long) * 600),
        }
    return out


def _overview_figures(asked: list[dict]) -> dict:
    if not asked:
        return {}
    return {"overview: right video": f"{sum(o['right_video'] for o in asked)} of {len(asked)}",
            "overview: chapters cited": round(float(np.mean([o["chapters_cited"] for o in asked])), 3),
            "overview: topics covered": round(float(np.mean([o["topics_covered"] for o in asked])), 3)}


def cost(gold, work: Path) -> dict:
    """The chapter stage's share of a fresh ingest of the long recordings (this process, warm models
    after the first video)."""
    import videorag.ingest.pipeline as pipeline

    spent = [0.0]
    shipped = pipeline.chapters_of

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return shipped(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - start

    folder = work / "cost"
    shutil.rmtree(folder, ignore_errors=True)
    pipeline.chapters_of = timed
    try:
        rag = VideoRAG(folder / "index")
        long = [gold.videos / f"{r.slug}.mp4" for r in recordings() if r.kind == "long"]
        start = time.perf_counter()
        report = rag.add(long)
        total = time.perf_counter() - start
    finally:
        pipeline.chapters_of = shipped
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "videos": report.count("added"),
        "ingest_seconds": round(total, 1),
        "chapter_seconds": round(spent[0], 2),
        "share": round(spent[0] / total, 4),
    }


def table(figures: dict) -> str:
    keys = list(next(iter(figures.values())))
    lines = ["| split | " + " | ".join(keys) + " |", "|" + "---|" * (len(keys) + 1)]
    lines += [f"| {split} | " + " | ".join(str(v) for v in row.values()) + " |" for split, row in figures.items()]
    return "\n".join(lines)


def write_readme(path: Path, run, figures: dict, result: dict) -> None:
    titles = [
        f"| {r['split']} | {r['slug']} | {t['topic']} | {t['title']} | {'✓' if t['shares_a_word'] else '✗'} "
        f"| {'✓' if t['nearest_heading'] else '✗'} |"
        for r in result["recordings"]
        if r["kind"] == "long"
        for t in r["titles"]
    ]
    spent = result.get("cost")
    text = "\n".join(
        [
            "# Chapters: topics found where they change, and named",
            "",
            "Produced by:",
            "",
            "```",
            run.command,
            "```",
            "",
            (__doc__ or "").split("\n\n")[1],
            "",
            table(figures),
            "",
            (
                f"Cost: the chapter stage took {spent['chapter_seconds']} s of a {spent['ingest_seconds']} s fresh ingest "
                f"of the {spent['videos']} long recordings ({100 * spent['share']:.1f} %)."
                if spent
                else "Cost: not measured."
            ),
            "",
            "Every judged title:",
            "",
            "| split | recording | topic (slide heading) | title | shares a word | nearest |",
            "|---|---|---|---|---|---|",
            *titles,
            "",
            f"Code: `{result['revision']}`. Per recording: `{run.args.results.name}/chapters.json.gz`.",
            "",
        ]
    )
    write_report(path, text, NOTES)


def main(run) -> dict:
    gold = golden(run)
    rag, _ = moment_rag(run, gold)
    if rag.library.optimize()["chaptered"]:  # an index cached before chapters: found from what it holds
        print("chapters added to the cached index", file=sys.stderr)
    tolerance = run.args.tolerance
    result = {"command": run.command, "revision": revision(), **measure(rag, gold, tolerance)}
    overviews(rag, result)
    if not run.args.no_cost:
        result["cost"] = cost(gold, run.work / "chapters")
    figures = summary(result, tolerance)
    result["summary"] = figures
    print(table(figures))
    if "cost" in result:
        print("cost:", result["cost"])
    if not run.settings:
        write_results(run.args.results / "chapters", result)
        write_readme(run.args.results / "README.md", run, figures, result)
        print(f"wrote {run.args.results / 'README.md'}")
    return result
