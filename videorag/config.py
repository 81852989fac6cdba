"""Configuration as dataclasses, validated on construction. Shared by the CLI and the API."""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import ConfigError

VIDEO_EXTENSIONS = (".mp4", ".mkv", ".webm", ".mov", ".avi")


def _positive(name: str, value: float) -> None:
    if value <= 0:
        raise ConfigError(f"`{name}` must be > 0, got {value!r}")


def _non_negative(name: str, value: float) -> None:
    if value < 0:
        raise ConfigError(f"`{name}` must be >= 0, got {value!r}")


def _shares(config, prefix: str, *names: str) -> None:
    """Each named field of `config` in [0, 1] (a share or weight); the message names it `prefix.name`."""
    for name in names:
        if not 0.0 <= getattr(config, name) <= 1.0:
            raise ConfigError(f"`{prefix}{name}` must be in [0, 1], got {getattr(config, name)!r}")


@dataclass
class IngestConfig:
    fps: float = 1.0                  # frames sampled per second of video
    frame_max_side: int = 384         # stored frames are scaled to fit this many pixels
    jpeg_quality: int = 80
    chunk_seconds: float = 120.0      # fixed-window chunks, as CARVE uses
    max_segment_seconds: float = 15.0  # longer ASR/subtitle segments are split
    segment_context: int = 0          # a segment's vector embeds it with this many neighbours on
                                      # each side (its stored text stays its own); 0 = alone
    asr: str = "faster-whisper"
    asr_model: str | None = None      # path or hub name; None = bundled Whisper tiny.en
    language: str | None = "en"
    extensions: tuple[str, ...] = VIDEO_EXTENSIONS
    visual: str | None = None         # visual embedder backend (clip | siglip | xclip | open-clip); None = off
    visual_model: str | None = None   # folder / hub id of its weights, or random-tiny / random-base
    retrieval_frames: int = 8         # k of k-means++ over a video's frames, for retrieval
    retrieval_subset: int = 4         # frames of those k the learned scorer keeps (paper: 4 of 8)
    frame_reduction: str = "kmeans"   # kmeans | uniform | random (the paper's Appendix C baselines)
    captioner: str | None = None      # frame captions (ocr | openai) stored in the index; None = off
    caption_model: str | None = None  # ocr: Tesseract language (default eng); openai: server model
    caption_base_url: str | None = None  # openai: server URL (default $OPENAI_BASE_URL)
    engine: str = "local"             # local (this process) | ray (Ray Data on a cluster)
    ray_address: str | None = None    # ray: the cluster (ray://host:10001, auto); None = start one here
    ray_workers: int | None = None    # ray: actors building videos (each loads the models once);
                                      # None = one per CPU of the cluster, at most one per video

    def __post_init__(self) -> None:
        if (self.caption_model or self.caption_base_url) and not self.captioner:
            raise ConfigError(f"`caption_model` ({self.caption_model!r}) and `caption_base_url` "
                              f"({self.caption_base_url!r}) need `captioner` (ocr | openai), got None")
        for name in ("fps", "frame_max_side", "chunk_seconds", "max_segment_seconds"):
            _positive(name, getattr(self, name))
        if self.ray_workers is not None:
            _positive("ray_workers", self.ray_workers)
        _non_negative("segment_context", self.segment_context)
        if not 1 <= self.jpeg_quality <= 100:
            raise ConfigError(f"`jpeg_quality` must be in 1..100, got {self.jpeg_quality!r}")
        if self.frame_reduction not in ("kmeans", "uniform", "random"):
            raise ConfigError(f"`frame_reduction` must be kmeans, uniform or random, got {self.frame_reduction!r}")
        if not 0 < self.retrieval_subset <= self.retrieval_frames:
            raise ConfigError(f"need 0 < `retrieval_subset` <= `retrieval_frames`, got "
                              f"{self.retrieval_subset} and {self.retrieval_frames}")
        if self.max_segment_seconds > self.chunk_seconds:
            raise ConfigError(f"`max_segment_seconds` ({self.max_segment_seconds}) must not exceed "
                              f"`chunk_seconds` ({self.chunk_seconds})")
        self.extensions = tuple(e.lower() if e.startswith(".") else "." + e.lower()
                                for e in self.extensions)


@dataclass
class EmbedConfig:
    backend: str = "sentence-transformers"
    model: str | None = None          # path or hub name; None = bundled all-MiniLM-L6-v2
    query_backend: str = "auto"       # embeds queries; "auto": the bundled model on ONNX Runtime when
                                      # installed (no torch at search time), else `backend`
    batch_size: int = 64
    device: str | None = None         # None = let the backend choose

    def __post_init__(self) -> None:
        _positive("batch_size", self.batch_size)


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
        _positive("max_seconds", self.max_seconds)
        _positive("per_video", self.per_video)
        _non_negative("moments.pad_segments", self.pad_segments)
        _positive("pool_videos", self.pool_videos)
        _shares(self, "moments.", "lexical_weight", "widen_ratio", "video_weight", "reranker_weight")
        if min(self.topic_discount, self.context_weight) < 0:
            raise ConfigError(f"`moments.topic_discount` and `moments.context_weight` must be >= 0, got "
                              f"{self.topic_discount} and {self.context_weight}")


@dataclass
class BestConfig:
    """Settings of the `hybrid` and `best` methods (video-level text retrieval)."""

    alpha: float = 0.5            # dense weight against the lexical score
    bigram_weight: float = 0.2    # `best`: share of the phrase signal inside the lexical score
    question_weight: float = 0.6  # `best`: dense score of the query's other phrasing, when given
    evidence_weight: float = 0.0  # `best`: the video's best segment (evidence anywhere in it)
    rerank_depth: int = 30        # `best`: first-stage videos re-scored by centrality
    centrality_weight: float = 1.5
    centroid_power: float = 3.0   # first-stage scores (in [0, 1]) raised to this as neighbour weights

    def __post_init__(self) -> None:
        _positive("rerank_depth", self.rerank_depth)
        for name in ("question_weight", "evidence_weight", "centrality_weight", "centroid_power"):
            _non_negative(f"best.{name}", getattr(self, name))
        _shares(self, "best.", "alpha", "bigram_weight")


@dataclass
class RerankConfig:
    """A scoring reranker (`videorag.rerank`): `e5`, `cross-encoder`, `llm` (the judge), `auto`."""

    backend: str = "e5"
    model: str | None = None          # cross-encoder: local folder or hub id; llm: the judge's model
    generator: str = "llamacpp"       # llm: generator backend that judges (llamacpp | openai)
    base_url: str | None = None       # llm through openai: server URL (default $OPENAI_BASE_URL)
    batch_size: int = 16
    timeout: float = 60.0

    def __post_init__(self) -> None:
        _positive("batch_size", self.batch_size)
        _positive("timeout", self.timeout)


@dataclass
class JudgeConfig:
    """Judged search (`videorag.methods.judged`): the steps of the best videos, read by a
    language model (the `llm` reranker in `reranker`), choose each video's cited moment, the
    order of moments and, in part, the order of videos."""

    enabled: bool | None = None       # None: off for `search`, on for `ask` when a judge model is installed
    videos: int = 3                   # best videos whose steps compete
    candidates: int = 5               # steps judged per query: the cost (≈ 0.45 s each on 2 cores)
    per_video: int | None = None      # at most this many of them from one video (None: no cap)
    weight: float = 0.8               # a judged step's score: this share the judge's P(yes), the rest retrieval's
    video_weight: float = 0.5         # a judged video's score: this share its best judged step, the rest retrieval's
    read_context: int = 0             # sentences on either side shown to the judge (marked as context)
    cite_context: int = 1             # sentences on either side cited with a judged step
    reranker: RerankConfig = field(default_factory=lambda: RerankConfig(backend="llm"))

    def __post_init__(self) -> None:
        _positive("judge.videos", self.videos)
        _positive("judge.candidates", self.candidates)
        if self.per_video is not None:
            _positive("judge.per_video", self.per_video)
        _non_negative("judge.read_context", self.read_context)
        _non_negative("judge.cite_context", self.cite_context)
        _shares(self, "judge.", "weight", "video_weight")


@dataclass
class CarveConfig:
    """CARVE (`videorag.methods.carve`): chunks of the index's `chunk_seconds`, four views each."""

    views: tuple[str, ...] = ("text-clip", "text-frame", "visual-frame", "visual-clip")  # those used
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
        from .retrieve.base import VIEWS

        _positive("pool", self.pool)
        _positive("rerank_depth", self.rerank_depth)
        _positive("judge_words", self.judge_words)
        _positive("generate_chunks", self.generate_chunks)
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
    fusion: str = "alpha"             # "alpha": α·dense + (1−α)·bm25 on normalised scores; "rrf"
    alpha: float = 0.6                # weight of the dense score in α fusion
    rrf_k: int = 60
    candidates: int = 300             # per-retriever candidate pool before fusion
    ann_min_rows: int = 50_000        # levels this large get an ANN (IVF) index in the search snapshot
    ann_probes: int = 32              # IVF cells searched per query (more: higher recall, slower)
    segment_weight: float = 0.5       # video score = mix of best segment, chunk and whole-video
    chunk_weight: float = 0.3
    video_weight: float = 0.2
    max_correction: float = 1.0       # a video's best segment / chunk loses this × σ·√(2 ln n), n its
                                      # units: long videos stop winning for their number of chances
    moments: MomentConfig = field(default_factory=MomentConfig)
    best: BestConfig = field(default_factory=BestConfig)
    frames: int = 10                  # rag-adapter: frames (moments) returned per video, K
    mmr_theta: float = 0.7            # rag-adapter: MMR penalty θ on redundancy
    first_stage: int = 50             # rag-adapter: frames kept by the cheaper signal before refining
    carve: CarveConfig = field(default_factory=CarveConfig)
    judge: JudgeConfig = field(default_factory=JudgeConfig)
    weak_below: float = 0.3           # a hit whose best segment's cosine similarity to the query is below
                                      # this is marked weak (tuned on MiniLM; -1 marks none) ...
    weak_gap: float = 0.2             # ... or is this far below the best hit's (2: never)

    def __post_init__(self) -> None:
        _positive("top_k", self.top_k)
        _positive("candidates", self.candidates)
        _positive("ann_min_rows", self.ann_min_rows)
        _positive("ann_probes", self.ann_probes)
        _positive("frames", self.frames)
        _positive("first_stage", self.first_stage)
        if self.fusion not in ("alpha", "rrf"):
            raise ConfigError(f"`fusion` must be 'alpha' or 'rrf', got {self.fusion!r}")
        _shares(self, "", "alpha", "visual_alpha", "mmr_theta")
        _non_negative("max_correction", self.max_correction)
        _non_negative("weak_gap", self.weak_gap)
        if not -1.0 <= self.weak_below <= 1.0:
            raise ConfigError(f"`weak_below` is a cosine similarity in [-1, 1], got {self.weak_below}",
                              "e.g. 0.3; -1 marks no hit weak")
        weights = (self.segment_weight, self.chunk_weight, self.video_weight)
        if min(weights) < 0 or sum(weights) <= 0:
            raise ConfigError(f"aggregation weights must be >= 0 and not all 0, got {weights}")


@dataclass
class VerifyConfig:
    """Checking an answer's claims against the moments they cite (`videorag.verify`)."""

    enabled: bool | None = None       # None: whenever the judge's model is installed (as `ask` judges)
    threshold: float = 0.3            # P(supported) under which a claim is unsupported (tuned on DEV)
    unsupported: str = "mark"         # "mark": kept and flagged; "drop": removed from the answer
    uncovered: float = 0.5            # a chat generator abstains when P(the moments hold no answer) >= this

    def __post_init__(self) -> None:
        _shares(self, "verify.", "threshold", "uncovered")
        if self.unsupported not in ("mark", "drop"):
            raise ConfigError(f"`verify.unsupported` must be 'mark' or 'drop', got {self.unsupported!r}")


@dataclass
class GenerateConfig:
    backend: str = "extractive"
    model: str | None = None          # backend-specific: server model name or GGUF path
    base_url: str | None = None       # openai: default $OPENAI_BASE_URL or http://localhost:8000/v1
    videos: int = 1                   # retrieved videos given to the generator (paper: 1)
    frames_per_video: int = 32        # frames sent per video (openai backend; paper: 32)
    frame_candidates: int = 64        # k-means++ candidates they are chosen from (paper: 64)
    max_tokens: int = 256
    temperature: float = 0.0
    timeout: float = 120.0
    context_words: int = 100          # words of transcript around each cited moment given to the generator
    verify: VerifyConfig = field(default_factory=VerifyConfig)

    def __post_init__(self) -> None:
        _positive("videos", self.videos)
        _positive("context_words", self.context_words)
        _positive("max_tokens", self.max_tokens)
        _non_negative("frames_per_video", self.frames_per_video)


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
