"""Retrieval methods by name. Each is a recipe — retrievers, fusion, aggregation to videos and
moments, rerankers — behind the `Method` contract (`videorag.retrieve.base`); `search`, `ask`,
the API and `videorag eval` all rank through these.

| name | what it does |
|---|---|
| `textvideorag` | transcripts: hybrid BM25 + dense over segments, chunks and whole videos |
| `bm25` / `dense` / `hybrid` | one video-level signal (dense = the video's best chunk), or both |
| `best` | hybrid + phrase bigrams + the query's other phrasing + centrality re-ranking |
| `videorag-v` / `videorag-vt` | frames only / α·text + (1−α)·frames (VideoRAG's ensemble) |
| `rag-adapter` | frames and captions, Dual Reranker + MMR (RAG-Adapter) |
| `carve` | 2-min chunks under four views (transcript, keyframe captions, keyframes, clip), pooled and reranked per chunk (CARVE) |

Any of them can be judged (`create_method(name, judged=True)`, `search --judge`): the steps of its
best videos are read by a language model that picks the moments (`videorag.methods.judged`).
"""

from __future__ import annotations

from ..config import SearchConfig
from ..registry import Registry
from ..retrieve.base import Method

METHODS = Registry(
    "retrieval method",
    {
        "textvideorag": "videorag.methods.text:TextVideoRAG",
        "bm25": "videorag.methods.text:BM25Method",
        "dense": "videorag.methods.text:DenseMethod",
        "hybrid": "videorag.methods.text:HybridMethod",
        "best": "videorag.methods.best:Best",
        "videorag-v": "videorag.methods.visual:VisualOnly",
        "videorag-vt": "videorag.methods.visual:VisualText",
        "rag-adapter": "videorag.methods.rag_adapter:RAGAdapter",
        "carve": "videorag.methods.carve:Carve",
    },
    # "shardable": ranks a sharded index (`videorag.shard`) as it ranks the whole one — its scores
    # need no collection statistics, or the method merges them (`statistics` / `merged`)
    {name: ("shardable",) for name in ("textvideorag", "bm25", "dense")},
)


def create_method(name: str, config: SearchConfig | None = None, judged: bool = False) -> Method:
    """The method `name`; `judged`: its moments chosen by the judge (`videorag.methods.judged`)."""
    config = config or SearchConfig()
    method = METHODS.create(name, config)
    if not judged:
        return method
    from .judged import Judged

    return Judged(method, config)
