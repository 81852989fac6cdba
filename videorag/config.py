"""Configuration as dataclasses, validated on construction. Shared by the CLI and the API.
Dotted overrides (`search.carve.rerank=false`) of any config dataclass: `apply_overrides`,
`override`; the command line builds its config with them."""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields, is_dataclass, replace
from typing import TypeVar

from .errors import ConfigError

VIDEO_EXTENSIONS = (".mp4", ".mkv", ".webm", ".mov", ".avi")
ENGINES = ("local", "ray")                      # `IngestConfig.engine`
TEXT_VIEWS, VISUAL_VIEWS = ("text-clip", "text-frame"), ("visual-frame", "visual-clip")  # CARVE's views of a
VIEWS = TEXT_VIEWS + VISUAL_VIEWS  # chunk: its transcript, its keyframes' captions, its keyframes, the clip
JUDGES = ("llamacpp", "openai")                 # generators an `llm` reranker judges through
FUSIONS = ("alpha", "rrf")                      # `SearchConfig.fusion`
UNSUPPORTED = ("mark", "drop")                  # `VerifyConfig.unsupported`
TEXT_LIMIT = 2000   # characters in a query or question: a question, not a document (the judge reads it per step)
# α (dense weight against BM25) of each method fusing the two, when `SearchConfig.alpha` is None; tuned per
# method: textvideorag's levels (segments, chunks, videos; videorag-vt's text) and hybrid's and best's videos
DEFAULT_ALPHA = {"textvideorag": 0.6, "hybrid": 0.5, "best": 0.5}
T = TypeVar("T")


def _check(config, prefix: str, names: tuple[str, ...], ok, wanted: str) -> None:
    """Each named field of `config` None (unset) or `ok`; the message names it `prefix.name`."""
    for name in names:
        value = getattr(config, name)
        if value is not None and not ok(value):
            raise ConfigError(f"`{prefix}{name}` must be {wanted}, got {value!r}")


def _positive(config, prefix: str, *names: str) -> None:
    _check(config, prefix, names, lambda v: v > 0, "> 0")


def _non_negative(config, prefix: str, *names: str) -> None:
    _check(config, prefix, names, lambda v: v >= 0, ">= 0")


def _shares(config, prefix: str, *names: str) -> None:
    """Shares and weights: in [0, 1]."""
    _check(config, prefix, names, lambda v: 0.0 <= v <= 1.0, "in [0, 1]")


@dataclass
class IngestConfig:
    fps: float = 1.0                  # frames sampled per second of video
    frame_max_side: int = 384         # stored frames are scaled to fit this many pixels
    jpeg_quality: int = 80
    chunk_seconds: float = 120.0      # fixed-window chunks, as CARVE uses
    max_segment_seconds: float = 15.0  # longer ASR/subtitle segments are split
    segment_context: int = 0          # neighbours each side a segment's vector embeds (not its text); 0 = alone
    asr: str = "faster-whisper"
    asr_model: str | None = None      # path or hub name; None = bundled Whisper tiny.en
    language: str = "auto"            # auto: identified per video (asr/language.py); or an ISO 639-1 code
    multilingual_model: str | None = None  # Whisper for other languages; None = whisper-base (videorag[languages])
    translate: bool = True            # their speech also said in English (Whisper translate): English questions find it
    extensions: tuple[str, ...] = VIDEO_EXTENSIONS
    visual: str | None = None         # visual embedder backend (clip | siglip | xclip | open-clip); None = off
    visual_model: str | None = None   # folder / hub id of its weights, or random-tiny / random-base
    retrieval_frames: int = 8         # k of k-means++ over a video's frames, for retrieval
    retrieval_subset: int = 4         # frames of those k the learned scorer keeps (paper: 4 of 8)
    frame_reduction: str = "kmeans"   # kmeans | uniform | random (the paper's Appendix C baselines)
    captioner: str | None = None      # frame captions (ocr | openai) stored in the index; None = off
    caption_model: str | None = None  # ocr: Tesseract language (default eng); openai: server model
    caption_base_url: str | None = None  # openai: server URL (default $OPENAI_BASE_URL)
    engine: str = "local"             # ENGINES: local (this process) | ray (Ray Data on a cluster)
    ray_address: str | None = None    # ray: the cluster (ray://host:10001, auto); None = start one here
    ray_workers: int | None = None    # ray: actors building videos, each loading the models; None = one per CPU
    streams: int | None = None        # local: videos built at once, each transcribed on cores / streams; None = 2

    def __post_init__(self) -> None:
        if (self.caption_model or self.caption_base_url) and not self.captioner:
            raise ConfigError(f"`caption_model` ({self.caption_model!r}) and `caption_base_url` "
                              f"({self.caption_base_url!r}) need `captioner` (ocr | openai), got None")
        _positive(self, "", "fps", "frame_max_side", "chunk_seconds", "max_segment_seconds", "ray_workers", "streams")
        _non_negative(self, "", "segment_context")
        _check(self, "", ("jpeg_quality",), lambda v: 1 <= v <= 100, "in 1..100")
        if self.engine not in ENGINES:
            raise ConfigError(f"`engine` must be one of {', '.join(ENGINES)}, got {self.engine!r}")
        _check(self, "", ("language",), lambda v: v == "auto" or (v.isalpha() and v.islower() and len(v) in (2, 3)),
               "auto or a language code such as en, es, fr")
        if self.frame_reduction not in ("kmeans", "uniform", "random"):
            raise ConfigError(f"`frame_reduction` must be kmeans, uniform or random, got {self.frame_reduction!r}")
        if not 0 < self.retrieval_subset <= self.retrieval_frames:
            raise ConfigError(f"need 0 < `retrieval_subset` <= `retrieval_frames`, got "
                              f"{self.retrieval_subset} and {self.retrieval_frames}")
        if self.max_segment_seconds > self.chunk_seconds:
            raise ConfigError(f"`max_segment_seconds` ({self.max_segment_seconds}) must not exceed "
                              f"`chunk_seconds` ({self.chunk_seconds})")
        self.extensions = tuple(e.lower() if e.startswith(".") else "." + e.lower() for e in self.extensions)


@dataclass
class EmbedConfig:
    backend: str = "auto"             # passages; auto: an index's own, else MiniLM on ONNX (no torch) if installed
    model: str | None = None          # path or hub name; None = bundled all-MiniLM-L6-v2
    query_backend: str = "auto"       # queries; auto: MiniLM on ONNX when installed (no torch), else `backend`'s
    batch_size: int = 16              # texts a model call embeds (MiniLM on ONNX: 16 of similar length)
    device: str | None = None         # None = let the backend choose

    def __post_init__(self) -> None:
        _positive(self, "", "batch_size")


@dataclass
class MomentConfig:
    """Moment localisation inside a video (see `videorag.retrieve.moments`)."""

    max_seconds: float = 30.0     # a moment is at most this long
    topic_discount: float = 1.0   # β: weight of what the query shares with the video's own topic
    lexical_weight: float = 0.15  # within-video BM25 share, beside the discounted dense score
    context_weight: float = 0.5   # share of the neighbouring segments' scores
    pad_segments: int = 0         # neighbours always cited on each side of the peak segment
    widen_ratio: float = 0.7      # neighbours scoring at least this share of the peak join it
    per_video: int = 5            # moments kept per video
    pool_videos: int = 10         # `--moments`: best videos whose moments compete
    video_weight: float = 0.5     # `--moments`: weight of the video's score beside the moment's
    reranker: str | None = None   # a registered reranker rescoring each video's moments (e.g. e5)
    reranker_weight: float = 0.5  # its share beside the moment's own score

    def __post_init__(self) -> None:
        _positive(self, "", "max_seconds", "per_video", "pool_videos")
        _non_negative(self, "moments.", "pad_segments")
        _shares(self, "moments.", "lexical_weight", "widen_ratio", "video_weight", "reranker_weight")
        if min(self.topic_discount, self.context_weight) < 0:
            raise ConfigError(f"`moments.topic_discount` and `moments.context_weight` must be >= 0, got "
                              f"{self.topic_discount} and {self.context_weight}")


@dataclass
class BestConfig:
    """Settings of the `best` method (video-level text retrieval; its α: `SearchConfig.alpha`)."""

    bigram_weight: float = 0.2    # `best`: share of the phrase signal inside the lexical score
    question_weight: float = 0.6  # `best`: dense score of the query's other phrasing, when given
    evidence_weight: float = 0.0  # `best`: the video's best segment (evidence anywhere in it)
    rerank_depth: int = 30        # `best`: first-stage videos re-scored by centrality
    centrality_weight: float = 1.5
    centroid_power: float = 3.0   # first-stage scores (in [0, 1]) raised to this as neighbour weights

    def __post_init__(self) -> None:
        _positive(self, "", "rerank_depth")
        _non_negative(self, "best.", "question_weight", "evidence_weight", "centrality_weight", "centroid_power")
        _shares(self, "best.", "bigram_weight")


@dataclass
class RerankConfig:
    """A scoring reranker (`videorag.rerank`): `e5`, `cross-encoder`, `llm` (the judge), `auto`."""

    backend: str = "e5"
    model: str | None = None          # cross-encoder: local folder or hub id; llm: the judge's model
    generator: str = "llamacpp"       # llm: generator backend that judges (JUDGES: llamacpp | openai)
    base_url: str | None = None       # llm through openai: server URL (default $OPENAI_BASE_URL)
    batch_size: int = 16
    timeout: float = 60.0

    def __post_init__(self) -> None:
        _positive(self, "", "batch_size", "timeout")
        if self.generator not in JUDGES:
            raise ConfigError(f"`reranker.generator` must be one of {', '.join(JUDGES)}, got {self.generator!r}")


@dataclass
class JudgeConfig:
    """Judged search (`videorag.methods.judged`): the best videos' steps, read by a language model (the
    `llm` reranker in `reranker`), choose each video's cited moment and order moments and videos."""

    enabled: bool | None = None       # None: off for `search`, on for `ask` when a judge model is installed
    videos: int = 3                   # best videos whose steps compete
    candidates: int = 5               # steps judged per query: the cost (≈ 0.45 s each on 2 cores)
    per_video: int | None = None      # at most this many of them from one video (None: no cap)
    each_video: bool = True           # every one of the `videos` has its best step among them
    weight: float = 0.8               # a judged step's score: this share the judge's P(yes), the rest retrieval's
    video_weight: float = 0.5         # a judged video's score: this share its best judged step, the rest retrieval's
    read_context: int = 0             # sentences on either side shown to the judge (marked as context)
    cite_context: int = 1             # sentences on either side cited with a judged step
    reranker: RerankConfig = field(default_factory=lambda: RerankConfig(backend="llm"))

    def __post_init__(self) -> None:
        _positive(self, "judge.", "videos", "candidates", "per_video")
        _non_negative(self, "judge.", "read_context", "cite_context")
        _shares(self, "judge.", "weight", "video_weight")


@dataclass
class CarveConfig:
    """CARVE (`videorag.methods.carve`): chunks of the index's `chunk_seconds`, four views each."""

    views: tuple[str, ...] = VIEWS     # those used
    pool: int = 20                    # chunks each view's retriever returns
    rerank: bool = True               # ablation: False = pooling without reranking
    rerank_depth: int = 8             # pooled candidates (best pooled scores) the reranker judges
    judge_words: int = 40             # words of a text candidate the reranker reads (its best passage)
    rerank_weight: float = 0.5        # a judged candidate's score: this share the reranker's, the rest
                                      # its retrieval score (1 = the reranker alone, as in the paper)
    choose: bool = True               # ablation: False = a chunk's view scores averaged, no choice
    unjudged_weight: float = 0.5      # a candidate the reranker cannot judge (frames, for a text-only
                                      # reranker) competes with this share of its retrieval score
    reranker: RerankConfig = field(default_factory=lambda: RerankConfig(backend="auto"))   # auto: the judge
    generate_chunks: int = 3          # `ask`: best chunks given to the generator, each in its view

    def __post_init__(self) -> None:
        _positive(self, "", "pool", "rerank_depth", "judge_words", "generate_chunks")
        _shares(self, "carve.", "unjudged_weight", "rerank_weight")
        self.views = tuple(self.views)
        unknown = [v for v in self.views if v not in VIEWS]
        if unknown or not self.views:
            raise ConfigError(f"`carve.views` must be some of {', '.join(VIEWS)}, got {self.views!r}")


@dataclass
class SearchConfig:
    method: str = "textvideorag"      # a registered method: `videorag search --help` lists them
    visual_alpha: float = 0.6         # α of videorag-vt (the paper's best range is 0.5–0.7)
    top_k: int = 5
    fusion: str = "alpha"             # FUSIONS: "alpha": α·dense + (1−α)·bm25 on normalised scores; "rrf"
    alpha: float | None = None        # dense weight against BM25 in every method fusing the two (textvideorag,
                                      # videorag-vt, hybrid, best; with rrf: the dense list's weight);
                                      # None: each method's tuned default, DEFAULT_ALPHA (`fusion_alpha`)
    rrf_k: int = 60
    candidates: int = 300             # per-retriever candidate pool before fusion
    ann_min_rows: int = 50_000        # levels this large get an ANN (IVF) index in the search snapshot
    ann_probes: int | None = None     # IVF cells read per query; None: the kind's (IVF-Flat 32, IVF-PQ 128)
    ann_compress_rows: int = 2_000_000  # levels this large, or every indexed level once segments are, get IVF-PQ
    ann_shortlist: int = 200          # IVF-PQ: vectors re-scored exactly per query
    segment_weight: float = 0.5       # video score = mix of best segment, chunk and whole-video
    chunk_weight: float = 0.3
    video_weight: float = 0.2
    max_correction: float = 1.0       # a video's best segment / chunk loses this × σ·E[max of n normals], n its
                                      # units: long videos stop winning for their number of chances
    moments: MomentConfig = field(default_factory=MomentConfig)
    best: BestConfig = field(default_factory=BestConfig)
    frames: int = 10                  # rag-adapter: frames (moments) returned per video, K
    mmr_theta: float = 0.7            # rag-adapter: MMR penalty θ on redundancy
    first_stage: int = 50             # rag-adapter: frames kept by the cheaper signal before refining
    carve: CarveConfig = field(default_factory=CarveConfig)
    judge: JudgeConfig = field(default_factory=JudgeConfig)
    weak_below: float = 0.3           # a hit whose best segment's cosine is under this is weak (MiniLM; -1: none)
    weak_gap: float = 0.2             # ... or this far below the best hit's (2: never)

    def __post_init__(self) -> None:
        _positive(self, "", "top_k", "candidates", "frames", "first_stage", "ann_min_rows", "ann_probes",
                  "ann_compress_rows", "ann_shortlist")
        if self.fusion not in FUSIONS:
            raise ConfigError(f"`fusion` must be one of {', '.join(FUSIONS)}, got {self.fusion!r}")
        _shares(self, "", "alpha", "visual_alpha", "mmr_theta")
        _non_negative(self, "", "max_correction", "weak_gap")
        if not -1.0 <= self.weak_below <= 1.0:
            raise ConfigError(f"`weak_below` is a cosine similarity in [-1, 1], got {self.weak_below}",
                              "e.g. 0.3; -1 marks no hit weak")
        weights = (self.segment_weight, self.chunk_weight, self.video_weight)
        if min(weights) < 0 or sum(weights) <= 0:
            raise ConfigError(f"aggregation weights must be >= 0 and not all 0, got {weights}")

    def fusion_alpha(self, method: str) -> float | None:
        """The α `method` fuses dense with BM25 by: `alpha` when set, else the method's default
        (None for a method that fuses no such pair)."""
        return DEFAULT_ALPHA.get(method) if self.alpha is None else self.alpha


@dataclass
class VerifyConfig:
    """Checking an answer's claims against the moments they cite (`videorag.verify`)."""

    enabled: bool | None = None       # None: whenever the judge's model is installed (as `ask` judges)
    threshold: float | None = None    # support under which a claim is unsupported; None: the fitted one
    unsupported: str = "mark"         # UNSUPPORTED: "mark": kept and flagged; "drop": removed from the answer
    at_words: bool = True             # cite the words that say a claim (word-timed indexes); false: its sentence
    answerability: bool = True        # decide first whether the moments answer (`videorag.answerability`)
    abstain_below: float | None = None  # P(answerable) under which `ask` abstains; None: the fitted threshold
    weights: str | None = None        # answerability weights (JSON); None: the package's own

    def __post_init__(self) -> None:
        _shares(self, "verify.", "threshold")
        if self.abstain_below is not None:
            _shares(self, "verify.", "abstain_below")
        if self.unsupported not in UNSUPPORTED:
            raise ConfigError(f"`verify.unsupported` must be one of {', '.join(UNSUPPORTED)}, got {self.unsupported!r}")


@dataclass
class GenerateConfig:
    backend: str = "auto"             # a generator; auto: llamacpp with the judge's model if installed, else extractive
    model: str | None = None          # backend-specific: server model name or GGUF path
    base_url: str | None = None       # openai: default $OPENAI_BASE_URL or http://localhost:8000/v1
    videos: int = 1                   # retrieved videos given to the generator (paper: 1)
    frames_per_video: int = 32        # frames sent per video (openai backend; paper: 32)
    frame_candidates: int = 64        # k-means++ candidates they are chosen from (paper: 64)
    max_tokens: int = 256
    temperature: float = 0.0
    timeout: float = 120.0
    context_words: int = 100          # words of transcript around each cited moment given to the generator
    steps: int = 3                    # judged asks: the judge's best steps the generator reads (0: excerpts)
    verify: VerifyConfig = field(default_factory=VerifyConfig)

    def __post_init__(self) -> None:
        _positive(self, "", "videos", "context_words", "max_tokens")
        _non_negative(self, "", "frames_per_video", "steps")


@dataclass
class Config:
    """Everything a VideoRAG pipeline needs; one object for the CLI, the API and tests."""

    ingest: IngestConfig = field(default_factory=IngestConfig)
    embed: EmbedConfig = field(default_factory=EmbedConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    generate: GenerateConfig = field(default_factory=GenerateConfig)
    show_progress: bool = False
    lock_wait: float | None = None    # seconds a writer waits for another (None: no limit, 0: fail at once)

    def __post_init__(self) -> None:
        if self.lock_wait is not None and self.lock_wait < 0:
            raise ConfigError(f"`lock_wait` must be >= 0 or None, got {self.lock_wait!r}")


def setting(config, path: str):
    """The value of the dotted field `path` (`search.carve.rerank`) of a config dataclass; of a
    dataclass type, its default. A ConfigError naming the fields there when `path` names none."""
    value, names = config, path.split(".")
    for i, name in enumerate(names):
        known = {f.name: f for f in fields(value)} if is_dataclass(value) else {}
        if name not in known:
            raise _unknown(".".join(names[:i]), name, known)
        value = getattr(value, name) if not isinstance(value, type) else _default(known[name])
    return value


def _default(f):
    return f.default_factory() if f.default_factory is not MISSING else f.default


def _unknown(where: str, name: str, known: dict) -> ConfigError:
    if not known:
        return ConfigError(f"`{where}` is a value, not a section: it has no field `{name}`")
    return ConfigError(f"unknown setting `{where + '.' if where else ''}{name}`",
                       f"the fields of `{where or 'Config'}`: {', '.join(known)}")


def parse_setting(config, item: str) -> tuple[str, object]:
    """("section.field", value) of "SECTION.FIELD=VALUE", the field checked in `config` (a config
    dataclass or its type): VALUE is read as JSON when it parses (3, 0.5, false, null, ["a"]),
    else as text, and text where the field holds text ("1" stays "1")."""
    path, sep, raw = item.partition("=")
    if not sep or not path:
        raise ConfigError(f"expected SECTION.FIELD=VALUE, got {item!r}", "e.g. search.carve.rerank=false")
    current = setting(config, path)
    if isinstance(current, str):
        return path, raw
    try:
        return path, _fit(path, current, json.loads(raw))
    except ValueError:
        return path, _fit(path, current, raw)


def _fit(path: str, current, value):
    """`value` in the type of the field's `current` value (None: any type; an int where a float
    stands becomes a float, a list where a tuple stands a tuple); a ConfigError when it cannot."""
    if is_dataclass(current) and not isinstance(value, type(current)):
        raise ConfigError(f"`{path}` is a section, not a value",
                          f"set one of its fields: {', '.join(f.name for f in fields(current))}")
    if current is None or type(value) is type(current):
        return value
    if isinstance(current, bool) and value in (0, 1):
        return bool(value)
    if isinstance(current, float) and type(value) is int:
        return float(value)
    if isinstance(current, tuple) and isinstance(value, list):
        return tuple(value)
    raise ConfigError(f"`{path}` takes a {type(current).__name__} (like {current!r}), got {value!r}")


def override(config: T, settings: Mapping[str, object]) -> T:
    """A copy of the config dataclass `config` with each dotted field of `settings` set (in the
    field's type, as `parse_setting` reads it); every section changed is validated again."""
    checked = {path: _fit(path, setting(config, path), value) for path, value in settings.items()}
    return _replaced(config, checked)


def _replaced(config, settings: Mapping[str, object]):
    sections: dict[str, dict] = {}
    for path, value in settings.items():
        name, _, rest = path.partition(".")
        sections.setdefault(name, {})[rest] = value
    changes = {}
    for name, inner in sections.items():
        base = inner.pop("", getattr(config, name))
        changes[name] = _replaced(base, inner) if inner else base
    return replace(config, **changes)


def apply_overrides(config: T, items: Iterable[str]) -> T:
    """`config` with each "SECTION.FIELD=VALUE" of `items` set (`parse_setting`, `override`):
    how `videorag eval --set` and the benchmarks run ablations."""
    return override(config, dict(parse_setting(config, item) for item in items))
