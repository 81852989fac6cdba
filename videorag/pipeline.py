"""The composable pipeline: an index directory plus the models that fill and query it."""
from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from .config import Config
from .embed import create_embedder
from .errors import IndexError_
from .generate import Evidence, create_generator
from .index.location import locate
from .index.meta import check_embedder, open_meta
from .methods import OPTIONAL_VISUAL, VISUAL
from .names import path_text
from .retrieve.base import TEXT_VIEWS, Query
from .types import Answer, Hit, IngestReport, Segment

if TYPE_CHECKING:
    from .index import VideoIndex

log = logging.getLogger(__name__)


def _locked(method):
    """Run under the pipeline's lock: lazy creation of models and the searcher happens once,
    whichever thread (a server's request) gets there first."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return wrapper


class VideoRAG:
    """Index videos, search them, answer questions with citations.

    >>> rag = VideoRAG("my-index")                  # doctest: +SKIP
    >>> rag.add(["videos/"]).summary()              # doctest: +SKIP
    >>> rag.search("how do I descale a kettle")     # doctest: +SKIP
    >>> rag.ask("how long should the paint dry?")   # doctest: +SKIP
    """

    def __init__(self, index_dir: str | Path, config: Config | None = None, *,
                 embedder=None, asr=None, generator=None):
        self.location = locate(index_dir)       # a directory or s3://bucket/prefix
        self.index_dir = self.location.local    # this machine's folder for what derives from it
        self.config = config or Config()
        self._embedder = embedder
        self._query_embedder = None
        self._asr = asr
        self._generator = generator
        self._index: VideoIndex | None = None
        self._searcher = None
        self._searcher_version = None
        self._visual = None
        self._frame_nets = None
        self._lock = threading.RLock()

    # -- components, created on first use -----------------------------------------------
    @property
    @_locked
    def embedder(self):
        if self._embedder is None:
            self._embedder = create_embedder(self.config.embed)
        return self._embedder

    @property
    @_locked
    def query_embedder(self):
        """The embedder of queries: the same model as `embedder`, on the runtime
        `EmbedConfig.query_backend` picks (an embedder given to the constructor embeds both)."""
        if self._query_embedder is None:
            from .embed import query_backend

            backend = query_backend(self.config.embed)
            self._query_embedder = (self.embedder if self._embedder is not None or backend == self.config.embed.backend
                                    else create_embedder(self.config.embed, backend))
        return self._query_embedder

    @property
    @_locked
    def asr(self):
        if self._asr is None:
            from .asr import create_asr

            cfg = self.config.ingest
            self._asr = create_asr(cfg.asr, cfg.asr_model, cfg.language)
        return self._asr

    @property
    @_locked
    def generator(self):
        if self._generator is None:
            self._generator = create_generator(self.config.generate, self.query_embedder)
        return self._generator

    @property
    @_locked
    def index(self) -> VideoIndex:
        """The index, refreshed to what other processes committed since the last call (one
        `stat` when nothing changed; see `VideoIndex.refresh`)."""
        if self._index is None:
            from .index import VideoIndex

            self._index = VideoIndex.open(self.location, self.config.lock_wait)
            query = self.query_embedder
            self._index.check_embedder(query.model_name, query.dim, getattr(query, "fingerprint", None))
        else:
            self._index.refresh()
        return self._index

    def _fingerprint(self) -> str | None:
        return getattr(self.embedder, "fingerprint", None)

    @property
    @_locked
    def visual(self):
        """The frame embedder: the configured one, else the one the index was built with."""
        if self._visual is None:
            from .visual import create_visual

            cfg, meta = self.config.ingest, (self._index.meta if self._index else {})
            if cfg.visual:
                self._visual = create_visual(cfg.visual, cfg.visual_model)
            elif "visual_backend" in meta:
                self._visual = create_visual(meta["visual_backend"], meta["visual_spec"])
        return self._visual

    @property
    @_locked
    def frame_nets(self) -> dict:
        """The learned frame scorers saved with the index ({} until `train-frame-selector`)."""
        if self._frame_nets is None:
            from .visual.scorer import SCORER_FILE, load

            path = self.index_dir / SCORER_FILE
            self._frame_nets = load(path)[0] if path.is_file() else {}
        return self._frame_nets

    @property
    @_locked
    def captioner(self):
        """The frame captioner: the configured one, else the one the index was built with
        (a captioned index stays complete); None when captions are off."""
        if getattr(self, "_captioner", None) is None:
            from .caption import create_captioner

            cfg = self.config.ingest
            known = (self._index.meta if self._index else {}).get("captioner") or {}
            if name := cfg.captioner or known.get("name"):
                model = cfg.caption_model if cfg.captioner else known.get("model")
                self._captioner = create_captioner(name, model, cfg.caption_base_url)
        return getattr(self, "_captioner", None)

    # -- operations -------------------------------------------------------------------------
    def add(self, paths: list[str | Path], progress=None, roots: tuple[Path, ...] | None = None,
            stages=None) -> IngestReport:
        """Index files and folders; `progress(done, total, current, result)` and `stages(current,
        stage, seconds_left)` follow the run (`Ingestor.run`);
        with `roots`, files and subtitles that resolve outside them (symlinks) are refused."""
        from .index import VideoIndex
        from .retrieve import snapshot
        from .visual.represent import clip_label

        if self._index is None:
            self._index = VideoIndex.open_or_create(
                self.location, self.embedder.model_name, self.embedder.dim, self._fingerprint(),
                self.config.lock_wait, embed_backend=self.config.embed.backend, asr_model=self.asr.model_name,
                chunk_seconds=self.config.ingest.chunk_seconds)
        with self._index.writer():
            self._index.refresh()
            self._index.record_fingerprint(self._fingerprint())
            cfg, meta = self.config.ingest, self._index.meta
            if cfg.visual or self._index.has_visual:   # a visual index stays complete
                visual = self.visual
                backend, spec = ((cfg.visual, cfg.visual_model or "") if cfg.visual
                                 else (meta["visual_backend"], meta["visual_spec"]))
                self._index.enable_visual(backend, spec, visual.model_name, visual.dim, clip_label(visual))
            report = self.ingestor(roots).run(list(paths), progress, stages)
        if not snapshot.fresh(self.location):   # after the writer's change mark, which it must match
            try:
                self._renew_snapshot()
            except OSError as exc:   # the videos are indexed; the next search saves it
                log.warning("search snapshot not saved (%s); the next search builds it", exc)
        return report

    def ingestor(self, roots: tuple[Path, ...] | None = None):
        """The `Ingestor` of this index with its settings and models (a visual index stays
        visual, a captioned one captioned). Writes nothing until its `run`."""
        from .ingest import Ingestor

        index = self._index if self._index is not None else self.index
        visual = self.visual if self.config.ingest.visual or index.has_visual else None
        net = self.frame_nets.get("retrieval") if visual is not None else None
        return Ingestor(index, self.config, self.asr, self.embedder, visual, net, captioner=self.captioner,
                        roots=roots)

    def remove(self, targets: list[str]) -> list[str]:
        """Drop videos given by id or by path; returns the ids removed."""
        index, removed = self.index, []
        with index.writer():
            index.refresh()
            rows = index.videos(["video_id", "path"]).to_pylist()
            for target in targets:
                resolved = path_text(Path(target).expanduser().resolve())
                for row in rows:
                    if target in (row["video_id"], row["path"]) or resolved == row["path"]:
                        index.remove(row["video_id"])
                        removed.append(row["video_id"])
        return list(dict.fromkeys(removed))

    def check(self, repair: bool = False) -> tuple[list, list[str]]:
        """(problems, repair actions): the index's invariants (see `videorag.index.check`)."""
        from .index.check import check, repair as fix

        index = self.index
        with index.writer():  # a check beside a running ingest would see its unfinished rows
            index.refresh()
            problems = check(index)
            return problems, (fix(index, problems) if repair and problems else [])

    def info(self) -> dict:
        """The index's figures, models and search snapshot (fresh or stale, its ANN indexes)."""
        from .retrieve import snapshot

        found = snapshot.manifest(self.location)
        search = {"snapshot": "missing"} if found is None else {
            "snapshot": "fresh" if snapshot.fresh(self.location, found) else "stale",
            "made": found["made"], "build_seconds": found["seconds"],
            "levels": {name: {"rows": level["rows"], "index": snapshot.describe(level)}
                       for name, level in found["levels"].items()}}
        return {**self.index.stats(), "search": search}

    def optimize(self) -> dict:
        """Compact the index's tables and rebuild its search snapshot (ANN indexes included)."""
        index = self.index
        with index.writer():
            index.refresh()
            index.compact()
        return self.save_snapshot()

    @_locked
    def save_snapshot(self) -> dict:
        """Build the search corpus from the index and save it as the index's snapshot (the next
        searcher, here or in another process, maps it instead of reading the index)."""
        from .retrieve import Corpus, snapshot

        made = snapshot.token(self.location)   # before reading: a later write makes it stale
        return self._keep(Corpus.from_index(self.index), made)

    @_locked
    def _extend_snapshot(self, base: dict) -> bool:
        """Save the snapshot `base` plus the videos indexed since it was made, without reading
        the rest of the index again; False (nothing done) when videos were also removed or
        moved since, the index has frame vectors, or `base` cannot be read."""
        from .retrieve import Corpus, snapshot

        made = snapshot.token(self.location)
        index = self.index
        if index.has_visual:   # a known video's visual vector may have changed (frame selector)
            return False
        current = dict(zip(*index.videos(["video_id", "path"]).to_pydict().values()))
        added = set(current) - set(base["video_ids"])
        if not added or any(current.get(v) != p for v, p in zip(base["video_ids"], base["paths"])):
            return False
        old = snapshot.load(self.location, base["token"], opener=lambda: self.index)
        if old is None:
            return False
        self._keep(old.extended(Corpus.from_index(index, only=added)), made)
        return True

    def _keep(self, corpus, made: str) -> dict:
        """Save `corpus` as the snapshot made at `made` and search it from now on."""
        from .retrieve import Searcher, snapshot

        found = snapshot.save(corpus, self.location, made, self.config.search.ann_min_rows)
        self._searcher, self._searcher_version = Searcher(corpus, self.query_embedder, index=self.index), made
        return found

    @_locked
    def searcher(self):
        """The index's searcher over its search snapshot (memory-mapped; saved first when missing
        or stale), renewed when another process (or this one) changed the index."""
        from .retrieve import Searcher, snapshot

        made = snapshot.token(self.location)
        if self._searcher is None or made != self._searcher_version:
            corpus = snapshot.load(self.location, made, opener=lambda: self.index)
            if corpus is None:
                self._save_or_build()
            else:
                query = self.query_embedder
                check_embedder(self.location, open_meta(self.location), query.model_name, query.dim,
                               getattr(query, "fingerprint", None))
                self._searcher, self._searcher_version = Searcher(corpus, query), made
        return self._searcher

    def _renew_snapshot(self) -> None:
        """Bring a stale snapshot up to date: extended with the videos added since it was made
        when that is all that changed, else saved anew from the index."""
        from .retrieve import snapshot

        base = snapshot.manifest(self.location)
        if base is None or not self._extend_snapshot(base):
            self.save_snapshot()

    def _save_or_build(self) -> None:
        """A stale or missing snapshot: renew it; a read-only index is searched from memory."""
        from .retrieve import Corpus, Searcher, snapshot

        try:
            self._renew_snapshot()
        except OSError as exc:
            log.info("search snapshot not saved (%s): searching from memory", exc)
            made = snapshot.token(self.location)   # before reading: a later write makes it stale
            self._searcher = Searcher(Corpus.from_index(self.index), self.query_embedder, index=self.index)
            self._searcher_version = made

    def method(self, name: str | None = None, judged: bool = False):
        """A registered retrieval method by name (default: the configured one); `judged`: its
        moments chosen by the judge."""
        from .methods import create_method

        return create_method(name or self.config.search.method, self.config.search, judged)

    def judged(self, judge: bool | None, default: bool = False) -> bool:
        """Whether a call judges: `judge` when given, else `SearchConfig.judge.enabled`, else
        `default` (True for `ask`: when the judge's model is installed)."""
        if judge is not None:
            return judge
        if self.config.search.judge.enabled is not None:
            return self.config.search.judge.enabled
        if not default:
            return False
        from .rerank.llm import available

        return available(self.config.search.judge.reranker)

    @property
    def judge(self):
        """The judge (the `llm` reranker of `SearchConfig.judge`), shared by the process."""
        from .rerank import shared_reranker

        return shared_reranker(self.config.search.judge.reranker)

    def _checked_visual(self):
        if not self.index.has_visual:
            raise IndexError_(f"method {self.config.search.method!r} needs frame embeddings; "
                              f"index {self.location} has none",
                              "re-index with --visual clip --visual-model FOLDER (see README)")
        self.index.check_visual(self.visual.model_name, self.visual.dim)
        return self.visual

    def search(self, query: str | Query, top_k: int | None = None, *, method: str | None = None,
               moments: bool = False, timings: dict | None = None, judge: bool | None = None) -> list[Hit]:
        """Best videos for `query`, each at its best moment; with `moments`, the best moments
        across the collection (several per video). `method` names a registered method;
        `judge`: the moments chosen by the judge (default `SearchConfig.judge.enabled`, else off);
        `timings`, when given, receives its stage times in seconds (e.g. carve's pool, rerank)."""
        text = query.text if isinstance(query, Query) else query
        if not text.strip():
            raise IndexError_("the query is empty", "ask something, e.g. 'how to change a tire'")
        chosen = self.method(method, self.judged(judge))
        return self._searcher_for(chosen).search(query, chosen, self.config.search, top_k, moments, timings)

    def _searcher_for(self, chosen):
        """The searcher, with the visual embedder loaded when the method needs it."""
        searcher = self.searcher()
        if chosen.name in VISUAL and searcher.visual is None and (
                chosen.name not in OPTIONAL_VISUAL or self.index.has_visual):
            searcher.visual = self._checked_visual()
        return searcher

    def ask(self, question: str, *, method: str | None = None, judge: bool | None = None,
            timings: dict | None = None) -> Answer:
        """Answer from the best moments of the best videos, citing those moments. `judge`: the
        moments chosen by the judge (default: whenever its model is installed); `timings` as in
        `search`."""
        judged = self.judged(judge, default=True)
        evidence = self._ask_evidence(question, method, judged, timings)
        return self._checked(self.generator.generate(question, evidence), evidence, judged)

    def ask_stream(self, question: str, *, method: str | None = None,
                   judge: bool | None = None) -> Iterator[str | Answer]:
        """`ask`, token by token: text pieces as the generator writes them, then the Answer.
        A generator without streaming gives its whole answer as one piece."""
        judged = self.judged(judge, default=True)
        evidence, generator = self._ask_evidence(question, method, judged), self.generator
        if hasattr(generator, "stream"):
            for piece in generator.stream(question, evidence):
                yield piece if isinstance(piece, str) else self._checked(piece, evidence, judged)
            return
        answer = generator.generate(question, evidence)
        yield answer.answer
        yield self._checked(answer, evidence, judged)

    def _checked(self, answer: Answer, evidence: list[Evidence], judged: bool) -> Answer:
        """The answer split into claims and verified against its citations (`videorag.verify`),
        saying which judge chose its moments (None: none did)."""
        from .verify import verify

        answer.judge = self.judge.label if judged else None
        cfg = self.config.generate.verify
        verifying = cfg.enabled if cfg.enabled is not None else self.judged(None, default=True)
        checks = verifying and hasattr(self.judge, "probabilities")   # a yes/no judge (not a bi-encoder)
        return verify(answer, evidence, self.judge if checks else None, cfg)

    def _ask_evidence(self, question: str, method: str | None, judged: bool = False,
                      timings: dict | None = None) -> list[Evidence]:
        chosen = self.method(method, judged)
        if hasattr(chosen, "interleaved"):
            return self._interleaved_evidence(question, chosen)
        hits = self.search(question, top_k=self.config.generate.videos, method=chosen.name, judge=judged,
                           timings=timings)
        return [self.evidence(hit, question, chosen) for hit in hits]

    def evidence(self, hit: Hit, question: str = "", method=None) -> Evidence:
        """The hit's moment with neighbouring segments up to `GenerateConfig.context_words`, what
        the screen shows meanwhile (with captions), and frames of the video; a method that selects
        its own evidence (rag-adapter) gives frames and lines."""
        if hasattr(method, "generation_evidence"):
            return self._selected_evidence(hit, question, method)
        segments = self.index.segments(hit.video_id)
        frames = []
        if self._wants_frames():
            frames = self.generation_frames(hit.video_id, question)
        lines = excerpt(segments, hit.start, self.config.generate.context_words)
        return Evidence(hit, lines, frames, screen=self._screen(hit.video_id, lines))

    def _screen(self, video_id: str, lines: list[Segment]) -> str:
        """The distinct on-screen texts (OCR captions) shown while `lines` are said ("" without)."""
        if not lines or not self.index.has_captions:
            return ""
        from .caption.base import seen

        rows = self.index.captions(video_id).select(["t", "text"]).to_pylist()
        shown = [seen(r["text"]) for r in rows if lines[0].start <= r["t"] <= lines[-1].end]
        return " / ".join(dict.fromkeys(t for t in shown if t))

    def _interleaved_evidence(self, question: str, method) -> list[Evidence]:
        """CARVE: the best chunks across the collection, in rank order, each in its winning view —
        its keyframes for a visual view (frames for generators that read images), its text else;
        each cites the moment inside the chunk."""
        searcher = self._searcher_for(method)
        qc = searcher.context(Query(question), self.config.search)
        out = []
        for chunk, moment in method.interleaved(qc, self.config.search.carve.generate_chunks):
            hit = searcher.hit(moment, moment.score)
            segments = [s for s in self.index.segments(hit.video_id) if chunk.start <= s.start < chunk.end]
            if chunk.source == "text-frame":
                segments = [Segment(chunk.start, chunk.end, chunk.text)]
            frames = [f for t in chunk.frames if (f := self.index.frame_near(hit.video_id, t)) is not None] \
                if chunk.source not in TEXT_VIEWS and self._wants_frames() else []
            out.append(Evidence(hit, segments, frames, view=chunk.source))
        return out

    def _wants_frames(self) -> bool:
        return bool(self.config.generate.frames_per_video) and self.config.generate.backend == "openai"

    def _selected_evidence(self, hit: Hit, question: str, method) -> Evidence:
        searcher = self.searcher()
        qc, _ = searcher.rank(Query(question), method, self.config.search)
        times, rows = method.generation_evidence(qc, searcher.corpus.video_ids.index(hit.video_id))
        level = searcher.corpus.segments
        lines = [Segment(float(level.starts[r]), float(level.ends[r]), level.texts[r]) for r in rows]
        frames = [f for f in self.index.frames(hit.video_id) if f.t in set(times)] if self._wants_frames() else []
        return Evidence(hit, lines, frames)

    def generation_frames(self, video_id: str, question: str) -> list:
        """Frames for the generator: k-means++ candidates, the learned query-aware choice when
        trained; an even spread of the sampled frames without the visual path."""
        cfg, frames = self.config.generate, self.index.frames(video_id)
        if not self.index.has_visual:
            return uniform(frames, cfg.frames_per_video)
        from .visual.represent import generation_frames

        times, vectors = self.index.frame_vectors(video_id)
        net = self.frame_nets.get("generation")
        query = self.visual.embed_texts([question])[0] if net is not None else None
        chosen = {float(times[i]) for i in generation_frames(vectors, query, cfg.frames_per_video,
                                                             cfg.frame_candidates, net)}
        return [f for f in frames if f.t in chosen]


def excerpt(segments: list[Segment], start: float, words: int) -> list[Segment]:
    """Consecutive segments around the one starting at `start`, about `words` words in all."""
    if not segments:
        return []
    centre = min(range(len(segments)), key=lambda i: abs(segments[i].start - start))
    lo = hi = centre
    count = len(segments[centre].text.split())
    while count < words and (lo > 0 or hi < len(segments) - 1):
        for side in (hi + 1, lo - 1):
            if 0 <= side < len(segments) and count < words and not lo <= side <= hi:
                count += len(segments[side].text.split())
                lo, hi = min(lo, side), max(hi, side)
    return segments[lo:hi + 1]


def uniform(items: list, k: int) -> list:
    """k items evenly spread over the list (all of them when there are at most k)."""
    if len(items) <= k:
        return list(items)
    return [items[int((i + 0.5) * len(items) / k)] for i in range(k)]
