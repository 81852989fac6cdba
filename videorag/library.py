"""The library: an index and what writes it — ingest, remove, check, optimize — with the models
ingest needs (made on first use) and the search snapshot it keeps in step with the index. The only
writer: the CLI, the service, the Ray actors and the Python API all write through it:
`Library("my-index").add(["videos/"]).summary()`."""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .config import Config
from .embed import create_embedder, fingerprint_of, passage_backend
from .embed.e5 import of as e5_of
from .errors import MediaError
from .index.location import locate
from .index.meta import META_FILE, check_runtime, open_meta
from .names import named, path_text
from .resources import own
from .types import IngestReport

if TYPE_CHECKING:
    from .index import VideoIndex
    from .retrieve import Corpus

log = logging.getLogger(__name__)


def locked(method):
    """Run under the object's lock: lazy creation of models happens once, whichever thread (a
    server's request) gets there first."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)

    return wrapper


class Library:
    """The index at `index_dir` (a directory or s3://bucket/prefix) and its writer."""

    def __init__(self, index_dir: str | Path, config: Config | None = None, *, embedder=None, asr=None, resources=None):
        self.resources = own(resources)  # the multilingual embedder, shared with its owner's searches
        self.location = locate(index_dir)
        self.config = config or Config()
        self._given, self._asr = embedder, asr  # models given to the constructor (else made on first use)
        self._index: VideoIndex | None = None
        self._frame_nets: dict | None = None
        self._lock = threading.RLock()
        self._saving = threading.Lock()  # one snapshot build at a time (an ingest beside a search)

    # -- models, made on first use, owned by `resources` (released by `close`) ---------------
    def _model(self, name: str, make):
        """This library's model `name`, made by `make()` (None: none to make yet, asked again next time)."""
        if (made := self.resources.get((self, name), make)) is None:
            self.resources.release((self, name))
        return made

    def close(self) -> None:
        """Release the models and pools loaded for this library; they load anew when next needed."""
        self.resources.close()

    @property
    def embedder(self):
        """The text embedder that fills the index."""
        return self._given or self._model("embedder", lambda: create_embedder(self.config.embed, self.embed_backend))

    @property
    def asr(self):
        return self._asr or self._model("asr", self._make_asr)

    def _make_asr(self):
        from .asr import create_asr
        from .ingest.engines.local import build_streams

        cfg = self.config.ingest
        streams = build_streams(cfg)
        return create_asr(cfg.asr, cfg.asr_model, cfg.language, streams, cfg.multilingual_model, cfg.translate)

    @property
    def embed_backend(self) -> str:
        """The backend of this index's passages: a given embedder's own, else `passage_backend`'s."""
        return passage_backend(self.config.embed, self.meta().get("embed_backend"), self._given)

    def meta(self) -> dict:
        """The index's metadata ({} before it exists); read without opening its tables."""
        return self._index.meta if self._index is not None else (open_meta(self.location) if self.exists() else {})

    def exists(self) -> bool:
        return self.location.exists(META_FILE)

    @property
    def visual(self):
        """The frame embedder: the configured one, else the one the index was built with."""
        from .visual import of_index

        return self._model("visual", lambda: of_index(self.config.ingest, self.meta()))

    @property
    @locked
    def frame_nets(self) -> dict:
        """The learned frame scorers saved with the index ({} until `train-frame-selector`)."""
        if self._frame_nets is None:
            from .visual.scorer import SCORER_FILE, load

            path = self.location.local / SCORER_FILE
            self._frame_nets = load(path)[0] if path.is_file() else {}
        return self._frame_nets

    @property
    def captioner(self):
        """The frame captioner: the configured one, else the one the index was built with
        (a captioned index stays complete); None when captions are off."""
        from .caption import of_index

        return self._model("captioner", lambda: of_index(self.config.ingest, self.meta()))

    @property
    @locked
    def index(self) -> VideoIndex:
        """The index (LanceDB), refreshed to what other processes committed since the last call
        (one `stat` when nothing changed; see `VideoIndex.refresh`)."""
        if self._index is None:
            from .index import VideoIndex

            self._index = VideoIndex.open(self.location, self.config.lock_wait)
        else:
            self._index.refresh()
        return self._index

    # -- writing ------------------------------------------------------------------------------
    def add(
        self, paths: Sequence[str | Path], progress=None, roots: tuple[Path, ...] | None = None, stages=None
    ) -> IngestReport:
        """Index files and folders; `progress(done, total, current, result)` and `stages(current,
        stage, seconds_left)` follow the run (`Ingestor.run`); with `roots`, files and subtitles
        that resolve outside them (symlinks) are refused. The snapshot is renewed after. Raises
        MediaError, writing nothing (no index made), when none of `paths` exists."""
        from . import snapshot
        from .ingest.discover import none_exist

        if none_exist(paths):
            raise MediaError(
                f"nothing to index: {', '.join(path_text(p) for p in paths)}: no such file or folder",
                "check the paths; no index was made or changed",
            )
        index = self._created()
        embedder = self.embedder
        with index.writer():
            index.refresh()
            index.check_embedder(embedder.model_name, embedder.dim, fingerprint_of(embedder))
            check_runtime(self.location, index.meta, self.embed_backend)
            index.record_fingerprint(fingerprint_of(embedder))
            self._enable_visual(index)
            report = self.ingestor(roots).run(list(paths), progress, stages)
        if not snapshot.fresh(self.location):  # after the writer's change mark, which it must match
            try:
                self.renew_snapshot()
            except OSError as exc:  # the videos are indexed; the next search saves it
                log.warning("search snapshot not saved (%s); the next search builds it", exc)
        return report

    def _created(self) -> VideoIndex:
        with self._lock:
            if self._index is None:
                from .index import VideoIndex

                self._index = VideoIndex.open_or_create(
                    self.location,
                    self.embedder.model_name,
                    self.embedder.dim,
                    fingerprint_of(self.embedder),
                    self.config.lock_wait,
                    embed_backend=self.embed_backend,
                    asr_model=self.asr.model_name,
                    chunk_seconds=self.config.ingest.chunk_seconds,
                )
            return self._index

    def _enable_visual(self, index) -> None:
        """A visual index stays visual: record (or check) the frame embedder before ingest."""
        from .visual.represent import clip_label

        cfg, meta = self.config.ingest, index.meta
        if cfg.visual or index.has_visual:
            backend, spec = (
                (cfg.visual, cfg.visual_model or "") if cfg.visual else (meta["visual_backend"], meta["visual_spec"])
            )
            visual = self.visual
            index.enable_visual(backend, spec, visual.model_name, visual.dim, clip_label(visual))

    def ingestor(self, roots: tuple[Path, ...] | None = None):
        """The `Ingestor` of this index with its settings and models (a visual index stays
        visual, a captioned one captioned). Writes nothing until its `run`."""
        from .ingest import Ingestor

        index = self._index if self._index is not None else self.index  # opened, not created: no lock
        visual = self.visual if self.config.ingest.visual or index.has_visual else None
        net = self.frame_nets.get("retrieval") if visual is not None else None
        return Ingestor(
            index,
            self.config,
            self.asr,
            self.embedder,
            visual,
            net,
            captioner=self.captioner,
            roots=roots,
            worker=functools.partial(worker_ingestor, str(index.location), self.config, roots),
            multilingual=lambda: e5_of(self.resources),
        )

    def remove(self, targets: list[str]) -> list[str]:
        """Drop videos given by id or by path; returns the ids removed."""
        index = self.index
        with index.writer():
            index.refresh()
            rows = index.videos(["video_id", "path"]).to_pylist()
            removed = [r["video_id"] for name in targets for r in named(rows, name)]
            for video_id in dict.fromkeys(removed):
                index.remove(video_id)
        return list(dict.fromkeys(removed))

    def check(self, repair: bool = False) -> tuple[list, list[str]]:
        """(problems, repair actions): the index's invariants (see `videorag.index.check`)."""
        from .index.check import check
        from .index.check import repair as fix

        index = self.index
        with index.writer():  # a check beside a running ingest would see its unfinished rows
            index.refresh()
            problems = check(index)
            return problems, (fix(index, problems) if repair and problems else [])

    def save_frame_nets(self, nets: dict, meta: dict) -> int:
        """Save trained frame scorers with the index (`train-frame-selector`: {"retrieval"[,
        "generation"]}, `meta` as `visual.scorer.save` takes it) and re-choose every video's
        retrieval frames and visual vector with the retrieval one; the snapshot is renewed after.
        Returns how many videos were re-chosen."""
        from . import snapshot
        from .visual import scorer

        index = self.index
        with index.writer():
            index.refresh()
            scorer.save(self.location.local / scorer.SCORER_FILE, nets, meta)
            with self._lock:
                self._frame_nets = dict(nets)  # later ingests and asks here use them too
            count = self._reselect_frames(index, nets["retrieval"])
        if not snapshot.fresh(self.location):
            try:
                self.renew_snapshot()
            except OSError as exc:  # the frames are re-chosen; the next search saves it
                log.warning("search snapshot not saved (%s); the next search builds it", exc)
        return count

    def _reselect_frames(self, index: VideoIndex, net) -> int:
        """Re-choose each video's retrieval frames with `net` and store its visual vector anew."""
        from .visual import EmbedsVideo
        from .visual.represent import retrieval_frames, video_vector

        cfg, visual, count = self.config.ingest, self.visual, 0
        for video_id in sorted(index.video_ids()):
            times, vectors = index.frame_vectors(video_id)
            if len(times):
                chosen = retrieval_frames(vectors, cfg.retrieval_frames, cfg.retrieval_subset, net, cfg.frame_reduction)
                images = [f.jpeg for f in index.frames(video_id)] if isinstance(visual, EmbedsVideo) else None
                index.set_visual(
                    video_id, [float(times[i]) for i in chosen], video_vector(vectors, chosen, visual, images)
                )
                count += 1
        return count

    def info(self) -> dict:
        """The index's figures, models and search snapshot (fresh or stale, its ANN indexes)."""
        from . import snapshot

        found = snapshot.manifest(self.location)
        if found is None:
            return {**self.index.stats(), "search": {"snapshot": "missing"}}
        levels = found["levels"].items()
        search = {
            "snapshot": "fresh" if snapshot.fresh(self.location, found) else "stale",
            "made": found["made"],
            "build_seconds": found["seconds"],
            "levels": {name: {"rows": level["rows"], "index": snapshot.describe(level)} for name, level in levels},
        }
        return {**self.index.stats(), "search": search}

    def optimize(self) -> dict:
        """Give chapters to the videos indexed before them, compact the index's tables and rebuild
        its search snapshot (ANN indexes and CARVE's chunk views included) and, when the index has
        shards (`videorag shard`), as many shards over every video it holds now."""
        from .chapters.backfill import add_missing

        index, show = self.index, self.config.show_progress
        with index.writer():
            index.refresh()
            chaptered = add_missing(index, lambda other: e5_of(self.resources) if other else self.embedder, show)
            index.compact()
        found = {**self.save_snapshot(), "chaptered": chaptered}
        from .shard.split import count, split

        if shards := count(self.location.local):  # rebalanced over the videos indexed since
            found["shards"] = split(self, shards)["shards"]
        return found

    # -- the search snapshot ------------------------------------------------------------------
    def corpus(self, only: set[str] | None = None, into: Path | None = None) -> Corpus:
        """The search corpus read from the index (see `videorag.snapshot.build`)."""
        from .snapshot.build import corpus_of

        return corpus_of(self.index, only, into)

    def save_snapshot(self) -> dict:
        """Build the search corpus from the index straight into a new snapshot (its large levels
        a block at a time) and make it the index's (every searcher, here or in another process,
        maps it instead of reading the index). Returns its manifest."""
        with self._saving:
            return self._save_anew()

    def _save_anew(self) -> dict:
        from . import snapshot

        made = snapshot.token(self.location)  # before reading: a later write makes it stale
        return self._save(lambda folder: self.corpus(into=folder), made)

    def read(self) -> tuple[Corpus, str]:
        """(the corpus read from the index into memory, the change token it was read at)."""
        from . import snapshot

        made = snapshot.token(self.location)  # before reading: a later write makes it stale
        return self.corpus(), made

    def _save(self, corpus: Corpus | Callable[[Path], Corpus], made: str) -> dict:
        from . import snapshot

        search = self.config.search
        return snapshot.save(corpus, self.location, made, search.ann_min_rows, search.ann_compress_rows)

    def renew_snapshot(self) -> tuple[Corpus, str]:
        """Bring a stale snapshot up to date and return its corpus and token: extended with the
        videos added since it was made when that is all that changed, else saved anew."""
        from . import snapshot

        with self._saving:
            made = snapshot.token(self.location)
            base = snapshot.manifest(self.location)
            if base is not None and base["token"] == made and (found := snapshot.load(self.location, made)):
                return found, made  # another thread renewed it meanwhile
            extended = self.extend_snapshot(base) if base is not None else None
            if extended is not None:
                return extended
            made = self._save_anew()["token"]
            corpus = snapshot.load(self.location, made)
            if corpus is None:  # replaced by a newer one at once: searched from memory
                return self.read()
            return corpus, made

    def extend_snapshot(self, base: dict) -> tuple[Corpus, str] | None:
        """Save the snapshot `base` plus the videos indexed since it was made, without reading
        the rest of the index again; None (nothing done) when videos were also removed or moved
        since, the index has more than transcripts (frames, captions), a level's vectors are
        meant to stay on disk (`ann.grows_in_memory`), or `base` cannot be read."""
        from . import snapshot
        from .vectors import ann

        made = snapshot.token(self.location)
        index = self.index
        if index.has_visual or index.has_captions:
            return None
        if not all(ann.grows_in_memory(level["ann"]) for level in base["levels"].values()):
            return None
        current = dict(zip(*index.videos(["video_id", "path"]).to_pydict().values(), strict=True))
        added = set(current) - set(base["video_ids"])
        if not added or any(current.get(v) != p for v, p in zip(base["video_ids"], base["paths"], strict=True)):
            return None
        old = snapshot.load(self.location, base["token"])
        if old is None:
            return None
        corpus = old.extended(self.corpus(only=added))
        self._save(corpus, made)
        return corpus, made


def worker_ingestor(index_dir: str, config: Config, roots: tuple[Path, ...] | None):
    """The ingestor of `index_dir` made anew in a worker process (a Ray actor), its models loaded
    there once."""
    return Library(index_dir, config).ingestor(roots)
