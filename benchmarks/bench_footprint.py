"""What a user pays in disk, memory, time and CPU — this tree beside an earlier revision
(`--before REV`, checked out as a git worktree and run on the same .venv) and this tree on another
environment's interpreter (`--python LABEL=PATH`, e.g. one where `make native` compiled llama.cpp
for this CPU), measured in one run:

1. install (with `--clean-install`): `make install` (the demo's install) in a fresh clone under
   `env -i`, so none of this machine's pip configuration (local wheels, extra indexes) applies:
   minutes, size of .venv, CUDA packages (nvidia-*, triton) found in it. This tree only.
2. ingest: `videorag index` of the demo's five narrated how-tos into a new index: × realtime,
   CPU-seconds per video-hour, peak RSS.
3. cli: cold `videorag ask`s (the defaults, `--no-server`) of an answerable question — the first
   on this machine (no instruction kept evaluated yet, `videorag.llm.state`), then `CLI_RUNS` more
   (the median's figures, each wall) — and of an off-topic one: wall, peak RSS, the "loading"
   lines on stderr.
4. serve: a `videorag serve` answers each question once (`POST /ask`) then again until `--asks`
   asks: ask p50 / p95 of new questions and of repeated ones, peak RSS after them, CPU-seconds a
   new question; a second `serve` runs judged searches (`/search?judge=true`) of the same
   questions (a server of its own: the judge's memo would otherwise answer them): p50; a third
   streams the same asks (`/ask?stream=true`): seconds to the first word and to the end.

    python -m benchmarks footprint [--before REV] [--python LABEL=PATH] [--asks 40] [--clean-install]
        [--index DIR --questions FILE.jsonl]    # another index and its questions ("query" or "question")
writes OUT/footprint.json; `--results DIR` also writes DIR/footprint.json (results/footprint/).
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from .bench_serve import free_port
from .driver import ROOT, revision, write_results

ANSWERABLE = (
    "How long should I wait before adding another layer of paint?",
    "What do I use instead of dish soap on my skillet?",
    "How do I find where the inner tube is leaking?",
    "How hot should the water be for coffee?",
    "how long should the glue dry?",
    "how many grams of coffee do I need?",
    "how much wider should the new pot be?",
    "what do I put in the bottom of the new pot?",
    "how do I keep my cast iron pan from rusting?",
    "what should I do before painting the wall?",
    "how do I get the tire off the rim?",
    "how long should the coffee brew?",
)
OFF_TOPIC = "what is the capital of France?"
CLI_RUNS = 3
TICK = os.sysconf("SC_CLK_TCK")


def options(parser) -> None:
    parser.add_argument("--before", help="an earlier revision measured beside this tree (e.g. 845600d)")
    parser.add_argument("--python", action="append", default=[], metavar="LABEL=PATH",
                        help="also this tree on another environment's interpreter (e.g. native=/tmp/nv/bin/python)")
    parser.add_argument("--asks", type=int, default=40, help="asks the server answers before its RSS is read")
    parser.add_argument("--clean-install", action="store_true", help="also time `make install` in a clean env")
    parser.add_argument("--index", type=Path, help="an existing index to ask (instead of the demo's)")
    parser.add_argument("--questions", type=Path, help="JSONL of that index's questions (query / question)")
    parser.add_argument("--results", type=Path, help="also write the figures to DIR/footprint.json")


def main(run) -> dict:
    work = run.work / "footprint"
    questions = _questions(run.args.questions)
    trees = {"this": (ROOT, sys.executable)}
    trees |= {run.args.before: (_worktree(work, run.args.before), sys.executable)} if run.args.before else {}
    trees |= {label: (ROOT, path) for label, path in (given.split("=", 1) for given in run.args.python)}
    videos = None if run.args.index else _demo_videos(work / "videos")
    found: dict = {"revision": revision(), "before": run.args.before, "cores": os.cpu_count(),
                   "load_before": os.getloadavg()[0], "questions": len(questions), "trees": {}}
    found["install"] = clean_install(work) if run.args.clean_install else run.previous().get("install")
    for name, (tree, python) in trees.items():
        index = run.args.index or work / f"index-{name}"
        figures: dict = {"python": python}
        if videos is not None:
            shutil.rmtree(index, ignore_errors=True)
            figures["ingest"] = ingest(tree, python, videos, index)
        figures["cli"] = cli(tree, python, index, questions[0])
        figures["serve"] = serve(tree, python, index, questions, run.args.asks)
        found["trees"][name] = figures
        print(name, json.dumps(figures), flush=True)
    found["load_after"] = os.getloadavg()[0]
    if run.args.results:
        write_results(run.args.results / "footprint", found)
    return found


# -- what runs -------------------------------------------------------------------------------------
def _videorag(python: str, *args: str) -> list[str]:
    return [python, "-m", "videorag.cli", *args]  # the tree's own code: `_env` puts it first


def _env(tree: Path) -> dict:
    """The tree's code first on the path (commands also run in the tree: `python -m` puts the
    working folder before PYTHONPATH); no remembered index or running server of the user's."""
    scratch = tempfile.mkdtemp(prefix="footprint-")
    return {**os.environ, "PYTHONPATH": str(tree), "XDG_CONFIG_HOME": scratch, "XDG_RUNTIME_DIR": scratch}


def measured(command: list[str], tree: Path) -> dict:
    """Run `command` in `tree` to its end: wall and CPU seconds, peak RSS (GB), exit status, stderr's
    "loading" lines and last lines."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=tree, env=_env(tree), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    err = proc.stderr.read() if proc.stderr else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"wall_s": round(time.perf_counter() - start, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_rss_gb": round(usage.ru_maxrss / 2**20, 3), "rc": proc.returncode,
            "loading": [line for line in err.splitlines() if line.startswith("loading")],
            "stderr_tail": err.strip().splitlines()[-2:]}


def ingest(tree: Path, python: str, videos: list[Path], index: Path) -> dict:
    got = measured(_videorag(python, "index", *map(str, videos), "--index", str(index)), tree)
    hours = sum(_duration(v) for v in videos) / 3600
    return {**got, "video_s": round(hours * 3600, 1), "x_realtime": round(hours * 3600 / got["wall_s"], 2),
            "cpu_s_per_video_hour": round(got["cpu_s"] / hours)}


def cli(tree: Path, python: str, index: Path, question: str) -> dict:
    from videorag.models import cache_root

    ask = ["ask", "--index", str(index), "--no-server"]
    shutil.rmtree(cache_root() / "llm-state", ignore_errors=True)  # as on a machine that never asked
    first = measured(_videorag(python, *ask[:1], question, *ask[1:]), tree)
    runs = sorted((measured(_videorag(python, *ask[:1], question, *ask[1:]), tree) for _ in range(CLI_RUNS)),
                  key=lambda run: run["wall_s"])
    return {"answerable_first": first,
            "answerable": {**runs[len(runs) // 2], "wall_s_runs": [run["wall_s"] for run in runs]},
            "off_topic": measured(_videorag(python, *ask[:1], OFF_TOPIC, *ask[1:]), tree)}


def serve(tree: Path, python: str, index: Path, questions: list[str], asks: int) -> dict:
    with _server(tree, python, index) as (http, pid):
        cpu0, new = _cpu(pid), [_timed(http.post, "/ask", json={"question": q}) for q in questions]
        cpu_new = (_cpu(pid) - cpu0) / len(questions)
        again = [_timed(http.post, "/ask", json={"question": questions[i % len(questions)]})
                 for i in range(max(asks - len(questions), 0))]
        memory = _memory(pid)
    with _server(tree, python, index) as (http, _):
        searches = [_timed(http.get, "/search", params={"q": q, "judge": "true"}) for q in questions]
    with _server(tree, python, index) as (http, _):
        streamed = [_streamed(http, q) for q in questions]
    return {"asks": len(new) + len(again), "ask_new": _spread(new), "ask_again": _spread(again),
            "cpu_s_per_new_question": round(cpu_new, 2), **memory, "judged_search": _spread(searches),
            "streamed_first_word": _spread([first for first, _ in streamed]),
            "streamed_done": _spread([done for _, done in streamed])}


def _streamed(http, question: str) -> tuple[float, float]:
    """Seconds to a streamed ask's first word (its first `token` event) and to its end."""
    start, first = time.perf_counter(), None
    with http.stream("POST", "/ask", params={"stream": "true"}, json={"question": question}) as reply:
        reply.raise_for_status()
        for line in reply.iter_lines():
            if first is None and line.startswith("event: token"):
                first = time.perf_counter() - start
    done = time.perf_counter() - start
    return (done if first is None else first), done


class _server:
    """`videorag serve` of `index` on a free port, ready (one search answered), stopped at exit."""

    def __init__(self, tree: Path, python: str, index: Path):
        self.port = free_port()
        command = _videorag(python, "serve", "--index", str(index), "--port", str(self.port))
        self.proc = subprocess.Popen(command, cwd=tree, env=_env(tree), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=300)

    def __enter__(self):
        while True:
            try:
                self.http.get("/methods").raise_for_status()
                return self.http, self.proc.pid
            except httpx.TransportError:
                if self.proc.poll() is not None:
                    raise SystemExit("videorag serve exited before answering") from None
                time.sleep(0.2)

    def __exit__(self, *exc) -> None:
        self.http.close()
        self.proc.terminate()
        self.proc.wait(30)


def _timed(call, route: str, **kwargs) -> float:
    start = time.perf_counter()
    call(route, **kwargs).raise_for_status()
    return time.perf_counter() - start


def _spread(seconds: list[float]) -> dict:
    if not seconds:
        return {}
    ordered = sorted(seconds)
    return {"n": len(seconds), "p50_s": round(statistics.median(ordered), 2),
            "p95_s": round(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], 2)}


def _cpu(pid: int) -> float:
    """CPU-seconds the process has used (user + system, all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def _memory(pid: int) -> dict:
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    return {key: round(int(status[field].split()[0]) / 2**20, 3)
            for key, field in (("rss_gb", "VmRSS"), ("peak_rss_gb", "VmHWM"))}


# -- inputs ----------------------------------------------------------------------------------------
def _questions(path: Path | None) -> list[str]:
    if path is None:
        return list(ANSWERABLE)
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [row.get("question") or row["query"] for row in rows if row.get("answerable", True)]


def _demo_videos(folder: Path) -> list[Path]:
    from videorag.demo.corpus import SAMPLES
    from videorag.demo.render import render

    paths = [folder / f"{h.slug}.mp4" for h in SAMPLES]
    for howto, path in zip(SAMPLES, paths, strict=True):
        if not path.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            render(howto, path)
    return paths


def _duration(path: Path) -> float:
    import av

    with av.open(str(path)) as container:
        return float(container.duration or 0) / 1e6


def _worktree(work: Path, rev: str) -> Path:
    tree = work / f"tree-{rev}"
    if not tree.exists():
        work.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev], check=True,
                       capture_output=True)
    return tree


def clean_install(work: Path) -> dict:
    """`make install` of this commit in a fresh clone, as a user's machine runs it: no pip configuration."""
    clone, home = work / "clean-clone", Path(tempfile.mkdtemp(prefix="footprint-home-"))
    shutil.rmtree(clone, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    start = time.perf_counter()
    done = subprocess.run(["make", "install"], cwd=clone, env=env, capture_output=True, text=True)
    site = next((clone / ".venv" / "lib").glob("python*/site-packages"))
    size = sum(f.stat().st_size for f in (clone / ".venv").rglob("*") if f.is_file() and not f.is_symlink())
    cuda = sorted(p.name for p in site.iterdir() if p.name.startswith(("nvidia", "triton")))
    return {"rc": done.returncode, "minutes": round((time.perf_counter() - start) / 60, 1),
            "venv_gb": round(size / 1e9, 3), "cuda_packages": cuda, "torch": (site / "torch").exists()}
