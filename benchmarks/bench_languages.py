"""Multilingual benchmark: how-to clips narrated by espeak-ng in Spanish, French, German, Italian
and Polish beside English clips on neighbouring topics (benchmarks/languages/clips.json; the
first clip of each language is DEV, the others TEST), indexed with the defaults.

Per language and split: every clip indexed and its language identified; the right video first
for questions in the clip's language and in English (plain search, and the judged search when
--judge), the right line among the top moment's (window@1); with --answers, `ask` with the
defaults: the key fact stated, the answer in the question's language (py3langid), off-topic
questions abstained. Ingest × realtime of the English clips beside the others, each indexed in
a run of its own.

    python -m benchmarks languages [--answers] [--judge] [--results results/languages]
    python -m benchmarks languages --calibrate   # fits embed/e5.py's SCALE and SHIFT (WikiHowQA)
    python -m benchmarks languages --asr [--beam 5]   # the ASR alone: WER, key facts heard (languages/asr.py)
    python -m benchmarks languages --across   # other languages' questions about English videos (languages/across.py)
"""
from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from videorag import VideoRAG
from videorag.demo.render import HowTo, StepSpan, render
from videorag.eval.answers import has_fact

from .driver import ROOT, revision

CLIPS = Path(__file__).resolve().parent / "languages" / "clips.json"
SPEED = 140
SPLITS = ("dev", "test")


def options(parser) -> None:
    parser.add_argument("--answers", action="store_true", help="also ask every question with the defaults")
    parser.add_argument("--judge", action="store_true", help="also run the judged search")
    parser.add_argument("--subtitles", action="store_true",
                        help="index the clips with their lines as .srt subtitles (the text as written, no ASR)")
    parser.add_argument("--asr", action="store_true",
                        help="only transcribe the other-language clips: WER and key facts heard (languages/asr.py)")
    parser.add_argument("--across", action="store_true",
                        help="questions in four languages about the demo's English videos (languages/across.py)")
    parser.add_argument("--beam", type=int, default=1, help="--asr: decode with beam search of this width")
    parser.add_argument("--calibrate", action="store_true", help="fit e5's scale onto MiniLM's (WikiHowQA)")
    parser.add_argument("--results", type=Path, default=ROOT / "results" / "languages",
                        help="its README.md gets the tables (left alone with --set)")


def rendered(clip: dict, videos: Path) -> tuple[Path, list[StepSpan]]:
    """The clip's video and line spans, rendered unless an up-to-date copy is cached."""
    path, meta = videos / f"{clip['slug']}.mp4", videos / f"{clip['slug']}.spans.json"
    digest = hashlib.sha1(json.dumps([clip["lines"], clip["language"], SPEED]).encode()).hexdigest()[:16]
    if path.is_file() and meta.is_file() and json.loads(meta.read_text())["digest"] == digest:
        return path, [StepSpan(*s) for s in json.loads(meta.read_text())["spans"]]
    videos.mkdir(parents=True, exist_ok=True)
    lines = tuple(clip["lines"])
    spans = render(HowTo(clip["slug"], lines[0], lines, lines), path, speed=SPEED, voice=clip["language"])
    meta.write_text(json.dumps({"digest": digest, "spans": [[s.start, s.end, s.text] for s in spans]}))
    return path, spans


def subtitled(clip: dict, videos: Path) -> Path:
    """A copy of the clip with its lines beside it as .srt cues (their spoken spans)."""
    videos.mkdir(parents=True, exist_ok=True)
    path = videos / clip["path"].name
    shutil.copyfile(clip["path"], path)
    stamp = lambda t: f"{int(t // 3600):02d}:{int(t % 3600 // 60):02d}:{t % 60:06.3f}".replace(".", ",")  # noqa: E731
    cues = [f"{n}\n{stamp(s.start)} --> {stamp(s.end)}\n{s.text}\n" for n, s in enumerate(clip["spans"], 1)]
    path.with_suffix(".srt").write_text("\n".join(cues))
    return path


def indexed(run, clips: list[dict], work: Path) -> tuple[VideoRAG, dict]:
    """A fresh index of every clip: the English ones in one run, the others in another (timed)."""
    folder = work / ("index-subtitles" if run.args.subtitles else "index")
    shutil.rmtree(folder, ignore_errors=True)
    rag = VideoRAG(folder, run.config())
    ingest = {}
    for name, group in (("en", [c for c in clips if c["language"] == "en"]),
                        ("other", [c for c in clips if c["language"] != "en"])):
        start = time.perf_counter()
        report = rag.add([c["path"] for c in group])
        seconds = time.perf_counter() - start
        audio = sum(c["spans"][-1].end for c in group)
        ingest[name] = {"clips": len(group), "added": report.count("added"), "failed": [f.error for f in report.failed],
                        "seconds": round(seconds, 1), "x_realtime": round(audio / seconds, 1),
                        "warnings": [w for f in report.files for w in f.warnings]}
    return rag, ingest


def questions(clips: list[dict], offtopic: list[dict]) -> list[dict]:
    rows = []
    for clip in clips:
        for n, q in enumerate(clip["questions"], 1):
            asked = "en" if _english(q["q"]) else clip["language"]
            rows.append({"id": f"{clip['slug']}#{n}", "q": q["q"], "clip": clip, "line": q["line"], "fact": q["fact"],
                         "language": clip["language"], "asked_in": asked, "split": clip["split"]})
    for n, q in enumerate(offtopic, 1):
        rows.append({"id": f"offtopic#{n}", "q": q["q"], "clip": None, "language": q["language"],
                     "asked_in": q["language"], "split": q["split"]})
    return rows


def _english(text: str) -> bool:
    import py3langid

    return py3langid.classify(text)[0] == "en"


def searched(rag: VideoRAG, row: dict, judge: bool) -> dict:
    hits = rag.search(row["q"], 5, moments=True, judge=judge)
    if row["clip"] is None or not hits:
        return {"video@1": False, "window@1": False}
    clip, top = row["clip"], hits[0]
    span = clip["spans"][row["line"]]
    right = top.path == str(clip["path"])
    return {"video@1": right, "window@1": right and top.start < span.end and top.end > span.start,
            "top": [top.path.rsplit("/", 1)[-1], round(top.start, 1), round(top.end, 1)]}


def asked(rag: VideoRAG, row: dict) -> dict:
    import py3langid

    answer = rag.ask(row["q"])
    text = answer.answer
    out = {"abstained": answer.abstained, "answer": text,
           "answer_language": py3langid.classify(text)[0] if text.strip() else None}
    if row["clip"] is not None:
        out["key_fact"] = not answer.abstained and any(has_fact(text, f) for f in row["fact"].split("|"))
    out["in_question_language"] = out["answer_language"] == row["asked_in"]
    return out


def summary(rows: list[dict], keys: tuple[str, ...]) -> dict:
    """Mean of each key over the rows that have it, per split × (clip language, asked in)."""
    out: dict = {}
    for row in rows:
        group = (row["split"], row["language"] if row["clip"] else "off-topic", row["asked_in"])
        label = " / ".join(group)
        cell = out.setdefault(label, {"n": 0})
        cell["n"] += 1
        for key in keys:
            if key in row:
                cell.setdefault(key, []).append(float(row[key]))
    return {label: {k: (round(float(np.mean(v)), 3) if isinstance(v, list) else v) for k, v in cell.items()}
            for label, cell in sorted(out.items())}


def totals(rows: list[dict], keys: tuple[str, ...]) -> dict:
    """Per split: the TEST/DEV figures the issue names (same-language, English questions, off-topic)."""
    out = {}
    for split in SPLITS:
        part = [r for r in rows if r["split"] == split]
        native = [r for r in part if r["clip"] and r["language"] != "en" and r["asked_in"] == r["language"]]
        english = [r for r in part if r["clip"] and r["language"] != "en" and r["asked_in"] == "en"]
        control = [r for r in part if r["clip"] and r["language"] == "en"]
        off = [r for r in part if r["clip"] is None]
        out[split] = {name: {"n": len(group), **{k: round(float(np.mean([r[k] for r in group if k in r])), 3)
                                                 for k in keys if any(k in r for r in group)}}
                      for name, group in (("own language", native), ("English about others", english),
                                          ("English clips", control), ("off-topic", off))}
    return out


def asr_only(run, clips: list[dict]) -> dict:
    """`--asr`: the clips transcribed, nothing indexed; the figures printed and returned."""
    from .languages.asr import heard

    result = {"command": run.command, "revision": revision(), **heard(clips, run.args.beam)}
    for slug, row in result["clips"].items():
        print(f"{slug}: {row.get('language', 'refused')} WER {row['wer']:.3f}, facts {sum(row['facts'])} "
              f"of {len(row['facts'])}", file=sys.stderr)
    print(json.dumps({k: result[k] for k in ("beam", "wer", "facts", "x_realtime")}))
    return result


def main(run) -> dict:
    if run.args.calibrate:
        from .languages.calibrate import fit

        return fit()
    if run.args.across:
        from .languages.across import across

        return across(run)
    data = json.loads(CLIPS.read_text())
    work = run.work / "languages"
    clips = data["clips"]
    for clip in clips:
        clip["path"], clip["spans"] = rendered(clip, work / "videos")
    if run.args.asr:
        return asr_only(run, [c for c in clips if c["language"] != "en"])
    if run.args.subtitles:
        for clip in clips:
            clip["path"] = subtitled(clip, work / "videos-subtitled")
    run.label = "subtitles" if run.args.subtitles else ""
    rag, ingest = indexed(run, clips, work)
    known = rag.library.index.languages()
    ids = dict(zip(*rag.library.index.videos(["path", "video_id"]).to_pydict().values(), strict=True))
    identified = {c["slug"]: known.get(ids.get(str(c["path"]), ""), (None, None)) for c in clips}
    rows = questions(clips, data["offtopic"])
    for row in rows:
        row.update(searched(rag, row, False))
        if run.args.judge:
            row.update({f"judged {k}": v for k, v in searched(rag, row, True).items() if k != "top"})
        if run.args.answers:
            row.update(asked(rag, row))
        print(row["id"], {k: v for k, v in row.items() if k not in ("clip", "q", "fact", "answer")}, file=sys.stderr)
    keys = ("video@1", "window@1", "judged video@1", "judged window@1", "key_fact", "in_question_language",
            "abstained")
    result = {
        "command": run.command, "revision": revision(), "ingest": ingest,
        "identified": {slug: {"language": lp[0], "probability": lp[1],
                              "right": lp[0] == next(c["language"] for c in clips if c["slug"] == slug)}
                       for slug, lp in identified.items()},
        "totals": totals(rows, keys), "groups": summary(rows, keys),
        "per_question": [{k: (str(v) if k == "clip" and v else v) for k, v in r.items() if k != "clip"} | {
            "clip": r["clip"]["slug"] if r["clip"] else None} for r in rows],
    }
    print(json.dumps({k: result[k] for k in ("ingest", "identified", "totals")}, indent=1))
    if not run.settings:
        from .languages.report import write_readme

        write_readme(run.args.results, result, run.label)
    return result
