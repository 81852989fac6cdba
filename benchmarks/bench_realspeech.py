"""Real-speech dev set: retrieval (and, with --answers, answers) on recorded English speech, beside
the espeak-narrated moment benchmark.

Builds the set of benchmarks/realspeech/ (packages fetched with pip, clips cut out and rendered as
videos, all cached in WORK/realspeech), indexes it (cached, incremental; `ingest.*` settings get
an index of their own), then for each method runs `videorag eval index`'s metrics on the
answerable questions: video R@1 / R@5 (the gold video among the top k of plain search),
window_hit@1, moment_recall@5 / @10 and moment_mrr, per kind of recording and over all. WER: the
index's transcript of each video against the clips' reference transcripts (numbers written as
digits on both sides), per kind of reference (shipped by the package, a published text, read
over from Whisper). All of it is dev: tune on it.

    python -m benchmarks realspeech [--methods textvideorag,NAME,...] [--answers] [--ingest-speed]
        [--results results/realspeech] [--set ingest.asr_model=...]
prints the tables and writes OUT/realspeech.json (per-question hits) and RESULTS/README.md (not
with --set). `--answers` also asks every question (and the unanswerable ones) with the extractive
generator, as `python -m benchmarks answers` does: key fact, citations, abstention.
`--ingest-speed` also indexes the videos afresh three times (models loaded before the clock, words
timed as the default ingest times them) and reports × realtime: min / median / max.
"""
from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

import numpy as np

from videorag import VideoRAG
from videorag.eval.answers import golden as golden_answers
from videorag.eval.answers import normalise
from videorag.eval.commands import evaluate_index
from videorag.eval.datasets import load_golden_jsonl

from .bench_answers import run_row
from .bench_core import timed_add, warm_rag
from .bench_moments import index_videos
from .driver import ROOT, ingest_items, revision, write_report
from .realspeech.build import Built, build, clips, questions, videos

NOTES = "## Beside it"   # the hand-written part of the README, kept when the tables are rewritten
METRICS = ("recall_first@1", "recall_first@5", "window_hit@1", "moment_recall@5", "moment_recall@10", "moment_mrr")
ANSWERS = ("key_fact_accuracy", "citation_precision", "abstention_precision", "abstention_recall",
           "false_abstention")
ANSWER_ROW = "generate.backend=extractive"


def realspeech_rag(run, built: Built) -> tuple[VideoRAG, dict]:
    """The index of the set's videos for the run's `ingest.*` settings, brought up to date."""
    rag = VideoRAG(built.videos.parent / "-".join(["index", *ingest_items(run.settings)]), run.config())
    indexed = index_videos(rag, built.videos, set(built.ids.values()))
    print(f"index: {indexed}", file=sys.stderr)
    return rag, indexed


def ingest_speed(run, built: Built, runs: int = 3) -> list[float]:
    """× realtime of indexing the set's videos into a fresh index, `runs` times: min, median, max."""
    from videorag.ingest.decode import probe

    seconds = sum(probe(p).duration for p in sorted(built.videos.glob("*.mp4")))
    speeds = []
    for _ in range(runs):
        rag = warm_rag(built.videos.parent / "index-speed", run.config())
        speeds.append(seconds / timed_add(rag, built.videos)[1])
    shutil.rmtree(built.videos.parent / "index-speed", ignore_errors=True)
    return [round(x, 1) for x in (min(speeds), float(np.median(speeds)), max(speeds))]


def by_kind(result: dict, rows: list[dict]) -> dict:
    """Mean of each metric over the questions of each kind of recording, and over all."""
    kinds = {r["id"]: r["kind"] for r in rows}
    out = {}
    for kind in (*dict.fromkeys(kinds.values()), "all"):
        chosen = [r for r in result["per_item"] if kind == "all" or kinds[r["qid"]] == kind]
        out[kind] = {"n": len(chosen), **{m: round(float(np.mean([r[m] for r in chosen])), 3) for m in METRICS}}
    return out


def video_transcripts(rag: VideoRAG, built: Built) -> dict[str, str]:
    """{slug: the index's transcript of the video}, its ASR segments in order."""
    slugs = {vid: slug for slug, vid in built.ids.items()}
    units = sorted((u for u in rag.library.index.units().to_pylist()
                    if u["kind"] == "segment" and u["video_id"] in slugs), key=lambda u: u["start"])
    return {slug: " ".join(u["text"] for u in units if slugs[u["video_id"]] == slug) for slug in built.ids}


def clip_errors(clip_ids: tuple[str, ...], heard: str) -> dict[str, list[int]]:
    """{clip: [word edits, reference words]}: the video's transcript aligned word by word (least
    edits) to its clips' references in order; an edit counts for the clip of the reference word it
    touches (an inserted word: the clip of the reference word before it)."""
    ref = [(c, w) for c in clip_ids for w in normalise(clips()[c].reference).split()]
    hyp = normalise(heard).split()
    cost = np.zeros((len(ref) + 1, len(hyp) + 1), int)
    cost[:, 0], cost[0, :] = np.arange(len(ref) + 1), np.arange(len(hyp) + 1)
    for i in range(1, len(ref) + 1):
        for j in range(1, len(hyp) + 1):
            cost[i, j] = min(cost[i - 1, j] + 1, cost[i, j - 1] + 1, cost[i - 1, j - 1] + (ref[i - 1][1] != hyp[j - 1]))
    out = {c: [0, sum(1 for r in ref if r[0] == c)] for c in clip_ids}
    i, j = len(ref), len(hyp)
    while i or j:
        if i and j and cost[i, j] == cost[i - 1, j - 1] + (ref[i - 1][1] != hyp[j - 1]):
            out[ref[i - 1][0]][0] += int(ref[i - 1][1] != hyp[j - 1])
            i, j = i - 1, j - 1
        elif i and cost[i, j] == cost[i - 1, j] + 1:
            out[ref[i - 1][0]][0] += 1
            i -= 1
        else:
            out[ref[max(i - 1, 0)][0]][0] += 1
            j -= 1
    return out


def word_errors(rag: VideoRAG, built: Built) -> dict:
    """WER of the index's transcripts against the clips' references (numbers as digits on both
    sides): per video, per kind of reference (package, known text, asr) and over all."""
    heard = video_transcripts(rag, built)
    per_clip = {c: e for v in videos() for c, e in clip_errors(v.clips, heard[v.slug]).items()}
    groups = {**{v.slug: v.clips for v in videos()},
              **{f"references: {kind}": tuple(c for c in per_clip if clips()[c].reference_from == kind)
                 for kind in ("package", "known text", "asr")},
              "all": tuple(per_clip)}
    pooled = {name: [sum(per_clip[c][i] for c in members) for i in (0, 1)] for name, members in groups.items()}
    return {"heard": heard, "per_clip": {c: {"wer": round(e / n, 4), "words": n} for c, (e, n) in per_clip.items()},
            "pooled": {name: {"wer": round(e / n, 4), "words": n, "clips": len(groups[name])}
                       for name, (e, n) in pooled.items()}}


def answer_items(built: Built) -> list[dict]:
    """The answer items (`videorag.eval.answers.golden`): the answerable rows with their key facts
    and the clips' reference text, then the unanswerable questions near their video."""
    rows = [json.loads(line) for line in built.dev.open()]
    near = [json.loads(line) for line in built.unanswerable.open()]
    said = {q["id"]: " ".join(clips()[c].reference for c in q["clips"]) for q in questions()}
    return golden_answers(rows, {r["id"]: r["key_fact"] for r in rows},
                          [{"question": q["query"], "near": q["near"]} for q in near], said, split="dev")


def answers(run, rag: VideoRAG, built: Built) -> dict:
    rag.config = run.config(*shlex.split(ANSWER_ROW))
    result = run_row(rag, answer_items(built))
    return {"setting": ANSWER_ROW, **{k: result.get(k) for k in (*ANSWERS, "first_ms", "answer_ms")},
            "answers": result["answers"]}


def table(runs: list[dict]) -> str:
    lines = ["| method | kind | n | " + " | ".join(METRICS) + " |", "|" + "---|" * (len(METRICS) + 3)]
    for r in runs:
        for kind, cell in r["by_kind"].items():
            values = " | ".join(f"{cell[m]:.3f}" for m in METRICS)
            lines.append(f"| {r['method']} | {kind} | {cell['n']} | {values} |")
    return "\n".join(lines)


def wer_table(errors: dict) -> str:
    lines = ["| clips | n | words | WER |", "|---|---|---|---|"]
    lines += [f"| {name} | {cell['clips']} | {cell['words']} | {cell['wer']:.3f} |"
              for name, cell in errors["pooled"].items()]
    return "\n".join(lines)


def answers_table(result: dict) -> str:
    cells = " | ".join("–" if result.get(c) is None else f"{result[c]:.2f}" for c in ANSWERS)
    return ("| setting | " + " | ".join(ANSWERS) + " | first / answer p50 ms |\n|" + "---|" * (len(ANSWERS) + 2)
            + f"\n| {result['setting']} | {cells} | {result['first_ms']} / {result['answer_ms']} |")


def summary(built: Built, rows: list[dict], near: int) -> list[str]:
    return [f"- {v.slug} ({v.kind}): {built.seconds[v.slug]:.0f} s, {len(v.clips)} clips, "
            f"{sum(r['video'] == v.slug for r in rows)} questions" for v in videos()] + [
        f"- {len(rows)} answerable questions, {near} unanswerable (near misses on the videos' topics); "
        f"{sum(built.seconds.values()) / 60:.1f} min in all"]


def write_readme(path: Path, run, payload: dict, built: Built, rows: list[dict]) -> None:
    near = sum(1 for _ in built.unanswerable.open())
    parts = ["# Real-speech dev set: recorded English speech, not espeak", "", "Produced by:", "", "```",
             run.command, "```", "",
             "Recorded speech from packages' test and example data (sources, versions, licences and checksums "
             "in `benchmarks/realspeech/sources.json`), rendered as videos of clips with short pauses over "
             "plain slides; questions written by hand, each answered by one or two clips whose spans are its "
             "gold windows. All of it is dev.", "", *summary(built, rows, near), "",
             "- R@k (recall_first@k): the gold video is in the top k of plain search (one hit per video); "
             "window_hit@1: the top hit is the gold video and its [start, end] overlaps a gold window; "
             "moment_recall@k / moment_mrr: over the top moments of `search(moments=True)`.", "",
             table(payload["runs"]), "",
             "WER of the index's transcripts (its ASR) against the clips' references, numbers as digits on both "
             "sides; the video's transcript aligned word by word to its clips' references in order. `package`: "
             "the transcript the package ships (LibriVox, cards, robot command); `known text`: the published "
             "text read; `asr`: Whisper's words read over by hand (no other reference), so its WER flatters "
             "the ASR:", "",
             wer_table(payload["wer"]), ""]
    if payload.get("answers"):
        parts += ["Answers (every question asked, unanswerable ones included):", "",
                  answers_table(payload["answers"]), ""]
    parts += [f"Code: `{payload['revision']}`. Index: {payload['index']['summary']}. Per-question hits: "
              "`bench-results/realspeech.json`.", ""]
    write_report(path, "\n".join(parts), NOTES)


def options(parser) -> None:
    parser.add_argument("--methods", default="textvideorag", help="comma-separated search method names")
    parser.add_argument("--answers", action="store_true", help=f"also ask every question ({ANSWER_ROW})")
    parser.add_argument("--ingest-speed", action="store_true", help="also time three fresh ingests: × realtime")
    parser.add_argument("--results", type=Path, default=ROOT / "results" / "realspeech",
                        help="its README.md gets the tables (its notes kept); left alone with --set")


def main(run) -> dict:
    built = build(run.work / "realspeech")
    rows = [json.loads(line) for line in built.dev.open()]
    rag, indexed = realspeech_rag(run, built)
    items = load_golden_jsonl(built.dev)
    runs = []
    for method in [m.strip() for m in run.args.methods.split(",") if m.strip()]:
        result = evaluate_index(rag, items, method)
        runs.append({"method": method, "by_kind": by_kind(result, rows), "result": result})
    payload = {"command": run.command, "revision": revision(), "index": indexed, "runs": runs,
               "wer": word_errors(rag, built)}
    if run.args.answers:
        payload["answers"] = answers(run, rag, built)
    if run.args.ingest_speed:
        payload["ingest_x_realtime"] = ingest_speed(run, built)
        print(f"ingest × realtime (min / median / max): {payload['ingest_x_realtime']}")
    print(table(runs))
    print(wer_table(payload["wer"]))
    if payload.get("answers"):
        print(answers_table(payload["answers"]))
    if not run.settings:
        write_readme(run.args.results / "README.md", run, payload, built, rows)
        print(f"wrote {run.args.results / 'README.md'}")
    return payload
