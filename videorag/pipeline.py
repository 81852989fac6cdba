"""`VideoRAG`, the Python API: a thin composition of the parts, each of which can be used alone —

- `Library` (`videorag.library`): the index and its one writer (add, remove, check, optimize,
  info) with the models ingest needs, keeping the search snapshot in step;
- `LiveSearcher` (`videorag.retrieve.live`): the searcher over the snapshot, renewed when the
  index changes; a registered method (`videorag.methods`) ranks through it;
- the method's evidence (`videorag.methods.evidence`), a generator (`videorag.generate`) and the
  verifier of its claims (`videorag.verify`).

Search reads the snapshot alone; frame images come from the frame store, only for generators and
judges that read them."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .answerability.read import assess
from .config import TEXT_LIMIT, Config
from .errors import ConfigError, IndexError_
from .generate import BACKENDS, Completes, Covers, Streams, create_generator, resolve_backend
from .generate.overview import Overview, Sources, overview_of
from .generate.overview import answer as overview
from .index.frames import IndexFrames
from .index.meta import check_visual, open_meta
from .languages import searched_as
from .library import Library
from .methods.evidence import EvidenceRequest, FramePicker, excerpt_evidence, gather, segments_of
from .resources import Resources, own
from .retrieve.base import Query
from .retrieve.live import LiveSearcher
from .types import Answer, Evidence, Hit

if TYPE_CHECKING:
    from .answerability import Verdict
    from .embed import TextEmbedder


class VideoRAG:
    """Index videos, search them, answer questions with citations.

    >>> rag = VideoRAG("my-index")                  # doctest: +SKIP
    >>> rag.add(["videos/"]).summary()              # doctest: +SKIP
    >>> rag.search("how do I descale a kettle")     # doctest: +SKIP
    >>> rag.ask("how long should the paint dry?")   # doctest: +SKIP
    """

    def __init__(
        self,
        index_dir: str | Path,
        config: Config | None = None,
        *,
        embedder=None,
        asr=None,
        generator=None,
        resources: Resources | None = None,
        events: Callable[[str], None] | None = None,
        live: Callable[[VideoRAG], Any] | None = None,
    ):
        self.resources = own(resources)  # its judge, generator model, rerankers, pools
        self.events = events  # told what starts (`_event`): progress for a command line
        self.library = Library(index_dir, config, embedder=embedder, asr=asr, resources=self.resources)
        self.location = self.library.location
        self._embedder_given = embedder is not None
        self._generator = generator  # one given to the constructor (else made on first use, owned by `resources`)
        self.frames = IndexFrames(lambda: self.library.index)  # frame images, read from the index when asked for
        # searched here, or elsewhere: e.g. the index's shards (`live=videorag.shard.serving.sharded(…)`)
        self.live = live(self) if live is not None else self._live_searcher()

    def _live_searcher(self) -> LiveSearcher:
        """The searcher of this index's snapshot, renewed by the library when the index changed."""
        return LiveSearcher(
            self.location,
            lambda: self.query_embedder,
            self.library.renew_snapshot,
            self.library.read,
            visual=self._checked_visual,
            frames=self.frames,
            resources=self.resources,
        )

    @property
    def config(self) -> Config:
        """The settings, shared with the library (assigning new ones reaches both)."""
        return self.library.config

    @config.setter
    def config(self, config: Config) -> None:
        """New settings for what follows: the generator and the answerability stage are made anew
        from them on next use (the embedders and the index stay as they are)."""
        self.library.config, self._generator = config, None
        for name in ("generator", "answerability"):
            self.resources.release((self, name))

    def add(self, paths: Sequence[str | Path], progress=None, roots: tuple[Path, ...] | None = None, stages=None):
        """Index files and folders (`Library.add`; the library's other writes and its models:
        `rag.library`)."""
        return self.library.add(paths, progress, roots, stages)

    def close(self) -> None:
        """Release the models and pools this instance and its library loaded (`resources`); it
        can be used again afterwards (they load anew)."""
        self.resources.close()

    def __enter__(self) -> VideoRAG:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- query-side models ---------------------------------------------------------------------
    @property
    def query_embedder(self) -> TextEmbedder:
        """The embedder of queries: the same model as `embedder`, on the runtime
        `EmbedConfig.query_backend` picks (an embedder given to the constructor embeds both)."""
        return self.resources.get((self, "query embedder"), self._make_query_embedder)

    def _make_query_embedder(self) -> TextEmbedder:
        from .embed import create_embedder, query_backend

        backend = query_backend(self.config.embed, self.library.meta().get("embed_backend"))
        same = self._embedder_given or backend == self.library.embed_backend
        return self.library.embedder if same else create_embedder(self.config.embed, backend)

    @property
    def generator(self):
        if self._generator is not None:
            return self._generator
        return self.resources.get((self, "generator"), self._make_generator)

    def _make_generator(self):
        return create_generator(self.config.generate, self.query_embedder, self.resources)

    def _checked_visual(self):
        """The frame embedder for queries (made when a method first needs it: the corpus has frame
        vectors), checked against the one that made the index's frames."""
        visual = self.library.visual
        check_visual(self.location, open_meta(self.location), visual.model_name, visual.dim)
        return visual

    # -- search --------------------------------------------------------------------------------
    def method(self, name: str | None = None, judged: bool = False):
        """A registered retrieval method by name (default: the configured one); `judged`: its
        moments chosen by the judge."""
        from .methods import create_method

        return create_method(name or self.config.search.method, self.config.search, judged)

    def judging(self, operation: str, judge: bool | None = None) -> bool:
        """Whether a `search` or an `ask` is judged — decided here only, for every surface:
        `judge` when the request gives it, else `SearchConfig.judge.enabled`, else off for
        search (about 2.5 s a query on 2 cores) and on for ask whenever the judge's model is
        installed."""
        if operation not in ("search", "ask"):
            raise ValueError(f"operation is 'search' or 'ask', not {operation!r}")
        if judge is not None:
            return judge
        if self.config.search.judge.enabled is not None:
            return self.config.search.judge.enabled
        if operation == "search":
            return False
        from .models import judge_available as available

        return available(self.config.search.judge.reranker)

    @property
    def judge(self):
        """The judge (the `llm` reranker of `SearchConfig.judge`), loaded once by this instance and
        shared by its search, generator and verifier."""
        from .rerank import shared_reranker

        return shared_reranker(self.config.search.judge.reranker, self.resources)

    def search(
        self,
        query: str | Query,
        top_k: int | None = None,
        *,
        method: str | None = None,
        moments: bool = False,
        timings: dict | None = None,
        judge: bool | None = None,
    ) -> list[Hit]:
        """Best videos for `query`, each at its best moment; with `moments`, the best moments
        across the collection (several per video). `method` names a registered method;
        `judge`: the moments chosen by the judge (default `SearchConfig.judge.enabled`, else off);
        `timings`, when given, receives its stage times in seconds (e.g. carve's pool, rerank)."""
        if isinstance(query, Query):
            _asked(query.text)
        else:
            query = self._searched_as(_asked(query))
        chosen = self.method(method, self.judging("search", judge))
        return self.live.get().search(query, chosen, self.config.search, top_k, moments, timings)

    # -- answers -------------------------------------------------------------------------------
    def ask(
        self, question: str, *, method: str | None = None, judge: bool | None = None, timings: dict | None = None
    ) -> Answer:
        """Answer from the method's evidence, citing its moments, or abstain when the moments do
        not answer the question (`videorag.answerability`). `judge`: the moments chosen by the
        judge (default: whenever its model is installed); `timings` as in `search`."""
        return self.answer(self.prepare(question, method, judge, timings))

    def ask_stream(
        self, question: str, *, method: str | None = None, judge: bool | None = None
    ) -> Iterator[str | Answer]:
        """`ask`, token by token: text pieces as the generator writes them, then the Answer."""
        return self.stream(self.prepare(question, method, judge))

    def answer(self, asked: Asked) -> Answer:
        """The answer to a prepared question (`prepare`): an overview from the chapters, its
        refusal, or the generator's answer verified."""
        if asked.overview is not None:
            return self._overview(asked)
        if asked.refused:
            return self._refusal(asked)
        self._event("writing")
        return self._checked(self.generator.generate(asked.question, asked.evidence), asked)

    def stream(self, asked: Asked) -> Iterator[str | Answer]:
        """`answer`, piece by piece: text pieces, then the Answer. A generator without streaming
        gives its whole answer as one piece."""
        generator = self.generator
        if asked.refused or asked.overview is not None or not isinstance(generator, Streams):
            answer = self.answer(asked)
            yield answer.answer
            yield answer
            return
        self._event("writing")
        for piece in generator.stream(asked.question, asked.evidence):
            yield piece if isinstance(piece, str) else self._checked(piece, asked)

    @property
    def answerability(self):
        """The answerability stage (`videorag.answerability`), None when switched off."""
        cfg = self.config.generate.verify
        if not cfg.answerability:
            return None
        from .answerability import Answerability

        return self.resources.get((self, "answerability"), lambda: Answerability(cfg.weights, cfg.abstain_below))

    def prepare(
        self, question: str, method: str | None = None, judge: bool | None = None, timings: dict | None = None
    ) -> Asked:
        """What `ask` does before generating: the question's evidence and the answerability
        verdict (`Asked.verdict`, with its signals). An off-topic question is refused from plain
        retrieval alone, before the judge or the generator runs (no evidence is gathered). A
        question about a whole video or the collection is answered from the chapters instead
        (`generate.overview`)."""
        if (asked := overview_of(_asked(question))) is not None:
            return Asked(question, [], False, overview=asked)
        judged = self.judging("ask", judge)
        chosen = self.method(method, judged)
        request = self._request(self._searched_as(_asked(question)), chosen, timings)
        if (stage := self.answerability) is None:
            return Asked(question, gather(chosen, request), judged)
        read = assess(stage, request, self.method(method), self._covered(question))
        return Asked(question, read.evidence, judged, read.verdict)

    def _searched_as(self, question: str) -> str:
        """The question in English when none of the videos is in its language (`searched_as`)."""
        try:
            spoken = set(self.live.get().corpus.languages or ["en"])
        except ConfigError:  # sharded: no corpus on this box
            return question
        return searched_as(question, spoken, lambda: g.complete if isinstance(g := self.generator, Completes) else None)

    def _covered(self, question: str):
        """The generator's own question "does this evidence hold the answer?" (None: it has none),
        which evaluates the answer's prompt: the generator starts writing (`events`)."""
        own = self.generator
        if not isinstance(own, Covers):
            return None

        def covered(evidence: list[Evidence]) -> float | None:
            self._event("writing")
            return own.covered(question, evidence)

        return covered

    def _event(self, name: str) -> None:
        """Tell `events` (given to the constructor) what starts: "writing" (the generator starts on
        the answer; said again at each of its calls for one answer)."""
        if self.events is not None:
            self.events(name)

    def evidence(
        self, question: str, *, method: str | None = None, judge: bool = False, timings: dict | None = None
    ) -> list[Evidence]:
        """What the generator reads for `question`: the method's evidence (`Method.evidence`,
        default an excerpt around each of its best `GenerateConfig.videos` videos' moments)."""
        chosen = self.method(method, judge)
        return gather(chosen, self._request(_asked(question), chosen, timings))

    def excerpt(self, hit: Hit, question: str = "") -> Evidence:
        """One hit's excerpt evidence (its moment, neighbouring lines, screen text, frames)."""
        return excerpt_evidence(self._request(question, self.method()), hit)

    def _request(self, question: str, chosen, timings: dict | None = None) -> EvidenceRequest:
        searcher = self.live.get()
        return EvidenceRequest(question, searcher, self.config, chosen, self._frames(searcher), timings)

    def _frames(self, searcher) -> FramePicker | None:
        """The frame picker when the generator reads images and frames are asked for."""
        cfg = self.config.generate
        if not cfg.frames_per_video or "reads-images" not in BACKENDS.traits(resolve_backend(cfg.backend)):
            return None
        return self._picker(searcher)

    def _picker(self, searcher) -> FramePicker:
        cfg = self.config.generate
        net = self.library.frame_nets.get("generation") if searcher.corpus.frames is not None else None
        return FramePicker(searcher.frames, searcher, cfg.frames_per_video, cfg.frame_candidates, net)

    def _checked(self, answer: Answer, asked: Asked) -> Answer:
        """The answer split into claims and verified against its citations (`videorag.verify`),
        saying which judge chose its moments (None: none did) and how answerable it was found."""
        from .verify import verify

        answer.judge = self.judge.label if asked.judged else None
        answer.answerable = asked.probability
        cfg = self.config.generate.verify
        verifying = cfg.enabled if cfg.enabled is not None else self.judging("ask")
        checks = verifying and hasattr(self.judge, "probabilities")  # a yes/no judge (not a bi-encoder)
        return verify(
            answer,
            asked.evidence,
            self.judge if checks else None,
            cfg,
            self.query_embedder,
            decided=asked.verdict is not None,
            words=self.live.get().corpus.words_of if cfg.at_words else None,
        )

    def _overview(self, asked: Asked) -> Answer:
        """The overview question's answer from the chapters (`generate.overview`), abstained in the
        question's language when the video it names is not indexed."""
        from .verify import abstain

        assert asked.overview is not None, "`answer` sends overview questions here"
        corpus = self.live.get().corpus  # the snapshot: no index read
        videos = zip(corpus.video_ids, corpus.paths, map(corpus.duration, range(len(corpus.video_ids))), strict=True)
        sources = Sources(
            [{"video_id": v, "path": p, "duration": d} for v, p, d in videos],
            corpus.chapters_of,
            lambda video: segments_of(corpus, corpus.row[video]),
            lambda text, k: self.search(text, k, judge=False),
        )
        answer = overview(asked.question, asked.overview, sources)
        return abstain(answer) if answer.abstained else answer

    def _refusal(self, asked: Asked) -> Answer:
        """The abstention the answerability stage decided (no generator ran)."""
        from .verify import abstain

        answer = Answer(asked.question, "", [], self.generator.name, answerable=asked.probability)
        stage = asked.verdict.stage if asked.verdict is not None else None
        answer.judge = self.judge.label if asked.judged and stage in ("judged", "full") else None
        return abstain(answer)


@dataclass
class Asked:
    """A question made ready to answer: its evidence, whether the judge chose it, and the
    answerability verdict (None: the stage is off)."""

    question: str
    evidence: list[Evidence]
    judged: bool
    verdict: Verdict | None = None
    overview: Overview | None = None  # what a question about a whole video or the collection asks

    @property
    def refused(self) -> bool:
        return self.verdict is not None and not self.verdict.answerable

    @property
    def probability(self) -> float | None:
        return None if self.verdict is None else round(self.verdict.probability, 3)


def _asked(text: str) -> str:
    """The query or question, refused when empty or longer than `TEXT_LIMIT` characters."""
    if not text.strip():
        raise IndexError_("the query is empty", "ask something, e.g. 'how to change a tire'")
    if len(text) > TEXT_LIMIT:
        raise IndexError_(
            f"the question is {len(text):,} characters long (at most {TEXT_LIMIT:,})", "ask it in a sentence or two"
        )
    return text
