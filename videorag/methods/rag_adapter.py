"""`rag-adapter`: RAG-Adapter (Sections 3.1–3.2 of the seed) over the index's FramesDB (1 fps
frame embeddings, when a visual backend made them) and CaptionsDB (a caption per sampled frame,
embedded with the text embedder).

- Videos are ranked by their best caption and their frame-based vector (min-max, summed).
- Inside a video, two-stage retrieval: the top `first_stage` frames by the cheaper signal (frame
  similarity; captions' dense similarity when there are no frame embeddings), refined by the other
  (captions; captions' BM25), then the Dual Reranker (normalised scores summed per frame) and MMR
  (θ = `mmr_theta`, redundancy = max cosine to the chosen frames) pick K = `frames` frames.
- Each chosen frame is cited as the transcript segment around it (its second when none).
- For generation, the K frames go in time order, with the 10 transcript lines most relevant to
  the question instead of the lines aligned with the frames (subtitle selection).
"""

from __future__ import annotations

import numpy as np

from ..config import SearchConfig
from ..errors import IndexError_
from ..rerank.dual import DualMMR
from ..retrieve.base import Candidate, Ranking
from ..retrieve.fusion import minmax
from ..retrieve.moments import segment_relevance

SUBTITLES = 10


class RAGAdapter:
    name = "rag-adapter"

    def __init__(self, config: SearchConfig):
        self.config = config

    def rank(self, qc) -> Ranking:
        c, n = qc.corpus, len(qc.corpus.video_ids)
        if c.captions is None and not _has_frames(qc):
            raise IndexError_(
                "rag-adapter needs frame captions or frame embeddings; the index has neither",
                "re-index with --captions ocr (and/or --visual BACKEND --visual-model FOLDER)",
            )
        scores = np.zeros(n, np.float64)
        if c.captions is not None:
            scores += minmax(c.captions.per_video_max(qc.dense(c.captions), n).astype(np.float64))
        if _has_frames(qc):
            scores += minmax((c.visual @ qc.visual_vector()).astype(np.float64))
        return Ranking(scores, lambda v, best_only=False: self.moments(qc, v))

    def select(self, qc, video: int) -> list[Candidate]:
        """The K frames for the query, MMR order (scores: summed, best = 1); once per query and video."""
        return qc.memo(("rag-adapter", self, video), lambda: self._select(qc, video))

    def _select(self, qc, video: int) -> list[Candidate]:
        frames = _FrameView(qc, video)
        first, second = frames.signals()
        if not len(first[0]):
            return []
        keep = np.argsort(-first[1], kind="stable")[: self.config.first_stage]
        times = first[0][keep]
        candidates = [frames.candidate(t, s, first[2]) for t, s in zip(times, first[1][keep], strict=True)]
        at = {t: i for i, t in enumerate(second[0])}
        candidates += [frames.candidate(t, second[1][at[t]], second[2]) for t in times if t in at]
        chosen = DualMMR(self.config.frames, self.config.mmr_theta, frames.vectors).rerank(qc, candidates)
        top = max((c.score for c in chosen), default=1.0) or 1.0
        return [Candidate(c.video, c.unit, c.start, c.end, c.score / top, c.source, c.text) for c in chosen]

    def moments(self, qc, video: int) -> list[Candidate]:
        level = qc.corpus.segments
        lo, hi = level.span(video)
        out = []
        for frame in self.select(qc, video):
            j = next((j for j in range(lo, hi) if level.starts[j] <= frame.start <= level.ends[j]), None)
            span = (
                (level.starts[j], level.ends[j], level.texts[j])
                if j is not None
                else (frame.start, frame.start + 1.0, frame.text)
            )
            out.append(Candidate(video, "frame", float(span[0]), float(span[1]), frame.score, frame.source, span[2]))
        return out

    def generation_evidence(self, qc, video: int) -> tuple[list[float], list[int]]:
        """(frame times in time order, segment rows of the 10 most relevant transcript lines)."""
        times = sorted(c.start for c in self.select(qc, video))
        lo, hi = qc.corpus.segments.span(video)
        if lo == hi:
            return times, []
        relevance = segment_relevance(qc, video, lo, hi, qc.config.moments)
        return times, sorted(lo + int(i) for i in np.argsort(-relevance, kind="stable")[:SUBTITLES])

    def evidence(self, request) -> list:
        """Per hit: its K frames in time order and the 10 transcript lines most relevant to the
        question (one query context for all hits: the videos are not ranked again)."""
        from ..types import Evidence
        from .evidence import segments_of

        qc, corpus, out = request.context, request.searcher.corpus, []
        for hit in request.hits():
            video = corpus.row[hit.video_id]
            times, rows = self.generation_evidence(qc, video)
            frames = request.frames.store.frames_at(hit.video_id, times) if request.frames is not None else []
            out.append(Evidence(hit, segments_of(corpus, video, rows), frames))
        return out


def _has_frames(qc) -> bool:
    return qc.corpus.frames is not None and qc.corpus.visual is not None


class _FrameView:
    """One video's frames as the two retrievers see them: times, scores and vectors."""

    def __init__(self, qc, video: int):
        self.qc, self.video = qc, video
        captions = qc.corpus.captions
        self.caption_rows = captions.span(video) if captions is not None else (0, 0)
        self.frame_times, self.frame_vectors = np.zeros(0), None
        if _has_frames(qc):
            self.frame_times, self.frame_vectors = qc.corpus.frames.of(video)

    def signals(self):
        """(first, second): each (times, scores, source name)."""
        lo, hi = self.caption_rows
        captions = self.qc.corpus.captions
        text = (captions.starts[lo:hi], self.qc.dense_span(captions, lo, hi), "caption") if hi > lo else None
        if self.frame_vectors is not None and len(self.frame_times):
            frames = (self.frame_times, self.frame_vectors @ self.qc.visual_vector(), "frame")
            return frames, text or (np.zeros(0), np.zeros(0), "caption")
        if text is None:
            return (np.zeros(0), np.zeros(0), "caption"), (np.zeros(0), np.zeros(0), "caption-bm25")
        lexical = captions.bm25.local_scores(lo, hi, self.qc.query.text)
        return text, (text[0], lexical, "caption-bm25")

    def candidate(self, t: float, score: float, source: str) -> Candidate:
        lo, hi = self.caption_rows
        captions = self.qc.corpus.captions
        i = lo + int(np.searchsorted(captions.starts[lo:hi], t)) if hi > lo else hi
        text = captions.texts[i] if i < hi and captions.starts[i] == t else ""
        return Candidate(self.video, "frame", float(t), float(t), float(score), source, text)

    def vectors(self, candidates: list[Candidate]) -> np.ndarray:
        """Unit vectors for MMR's redundancy: frame embeddings, else caption embeddings."""
        if self.frame_vectors is not None and len(self.frame_times):
            times, vectors = self.frame_times, self.frame_vectors
        else:
            lo, hi = self.caption_rows
            times, vectors = self.qc.corpus.captions.starts[lo:hi], self.qc.corpus.captions.vectors[lo:hi]
        rows = np.searchsorted(times, [c.start for c in candidates])
        chosen = np.asarray(vectors[np.minimum(rows, len(times) - 1)], np.float32)
        return chosen / np.maximum(np.linalg.norm(chosen, axis=1, keepdims=True), 1e-12)
