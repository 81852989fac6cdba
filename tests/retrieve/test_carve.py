"""CARVE end to end on rendered videos whose slides show other words than the subtitles say: the
four views are indexed with their models recorded; retrieval under `text-frame` finds what only
the screen shows, `text-clip` what only the voice says, and `carve` pools both, reranks each
candidate under the view that found it and keeps each chunk's best view; ablations; interleaved
generation (frames for visual views, text for text views)."""
from __future__ import annotations

from types import SimpleNamespace

import shutil

import numpy as np
import pytest

from tests.caption.test_ocr_ingest import render_with_subtitles
from videorag import Config, IngestConfig, VideoRAG
from videorag.config import CarveConfig, GenerateConfig
from videorag.demo.render import HowTo
from videorag.errors import ConfigError, IndexError_
from videorag.generate.openai import OpenAIGenerator
from videorag.methods.carve import choose, rescore
from videorag.rerank import RERANKERS
from videorag.rerank.base import ScoringReranker
from videorag.retrieve.base import Candidate
from videorag.visual.represent import chunk_views, clip_label

NEEDS_TESSERACT = pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract-ocr not installed")
NO_QC = SimpleNamespace(searcher=SimpleNamespace(resources=None))   # rescore reads only its owner's models


def rendered(test):
    """A test on the rendered, OCR-captioned index (`rag`): slow, and skipped without Tesseract.
    The other tests here are pure numpy and run everywhere."""
    return pytest.mark.slow(NEEDS_TESSERACT(test))

OMELETTE = HowTo("omelette", "Omelette basics", (
    "Whisk three eggs with a fork.", "Melt butter in a small pan.", "Fold the omelette in half."))
OMELETTE_SAID = ("Crack them into a bowl first.", "Keep the heat low.", "Slide it onto a warm plate.")
TEA = HowTo("tea", "Tea time", (
    "Boil fresh water in a kettle.", "Put a tea bag in a mug.", "Steep for three minutes."))
TEA_SAID = ("Use filtered water if you can.", "Any black tea works.", "Then take the bag out.")
CHUNK = 4.0


@pytest.fixture(scope="module")
def rag(tmp_path_factory, asr, embedder):
    folder = tmp_path_factory.mktemp("carve")
    spans = {}
    for howto, said in ((OMELETTE, OMELETTE_SAID), (TEA, TEA_SAID)):
        path = folder / "videos" / f"{howto.slug}.mp4"
        path.parent.mkdir(exist_ok=True)
        spans[howto.slug] = render_with_subtitles(howto, said, path)
    config = Config(ingest=IngestConfig(chunk_seconds=CHUNK, max_segment_seconds=CHUNK, captioner="ocr",
                                        visual="clip", visual_model="random-tiny"))
    rag = VideoRAG(folder / "index", config, asr=asr, embedder=embedder)
    assert rag.add([folder / "videos"]).count("added") == 2
    rag.spans, rag.videos = spans, folder / "videos"
    return rag


def search(rag, query: str, views=None, **carve):
    rag.config.search.carve = CarveConfig(views=views or CarveConfig().views, **carve)
    return rag.search(query, method="carve", moments=True)


def path_of(hit) -> str:
    return hit.path.rsplit("/", 1)[-1]


@rendered
def test_the_four_views_are_indexed_with_their_models(rag):
    meta = rag.library.index.meta
    assert meta["chunk_seconds"] == CHUNK and meta["clip_model"] == "mean of clip:random-tiny frame vectors"
    rows = rag.library.index.chunk_views(rag.library.index.video_ids())
    assert rows.num_rows >= 4 and all(1 <= len(k) <= 5 for k in rows["keyframes"].to_pylist())
    assert all(e - s <= CHUNK + 1e-6 for s, e in zip(rows["start"].to_pylist(), rows["end"].to_pylist()))
    views = rag.live.get().corpus.chunk_views
    assert set(views.views) == {"text-clip", "text-frame", "visual-frame", "visual-clip"}
    assert views.models["visual-frame"] == "clip:random-tiny"
    assert views.models["text-frame"] == "tesseract:eng captions, all-MiniLM-L6-v2"
    assert views.models["text-clip"] == "all-MiniLM-L6-v2"
    per_chunk = np.bincount(views.views["text-frame"].chunk)
    assert per_chunk.max() <= 5


@rendered
def test_each_text_view_finds_what_only_it_carries(rag):
    melt = rag.spans["omelette"][1]   # "Melt butter ..." is on screen only; "Keep the heat low" is said
    on_screen = search(rag, "melt butter in a small pan", views=("text-frame",))[0]
    assert path_of(on_screen) == "omelette.mp4" and on_screen.start < melt.end and melt.start < on_screen.end
    said = search(rag, "keep the heat low", views=("text-clip",))[0]
    assert path_of(said) == "omelette.mp4" and said.start < melt.end and melt.start < said.end
    # the spoken words of another step do not contain the screen's words: text-clip alone ranks
    # the melt chunk below text-frame's certainty
    best = search(rag, "melt butter in a small pan", rerank=False)[0]
    assert path_of(best) == "omelette.mp4" and best.start < melt.end and melt.start < best.end


class _Recorder(ScoringReranker):
    """A text reranker double: scores by query-word overlap and records what it was shown."""

    name = "recorder"
    seen: list = []

    def score(self, qc, candidates):
        _Recorder.seen = list(candidates)
        words = set(qc.query.text.lower().split())
        return np.array([len(words & set(c.text.lower().replace(".", " ").split())) if c.source.startswith("text")
                         else np.nan for c in candidates], np.float64)


@rendered
def test_candidates_are_reranked_only_under_the_view_that_found_them(rag, monkeypatch):
    monkeypatch.setitem(RERANKERS._entries, "recorder", f"{__name__}:_Recorder")
    rag.config.search.carve = CarveConfig()
    rag.config.search.carve.reranker.backend = "recorder"
    hits = rag.search("steep for three minutes", method="carve", moments=True)
    steep = rag.spans["tea"][2]
    assert path_of(hits[0]) == "tea.mp4" and hits[0].start < steep.end and steep.start < hits[0].end
    seen = _Recorder.seen
    assert {c.source for c in seen} == {"text-clip", "text-frame", "visual-frame", "visual-clip"}
    for c in seen:   # a text view is shown as text, a visual view as its frames (no text)
        assert bool(c.text) if c.source.startswith("text") else (c.frames and not c.text)
        assert c.source != "text-clip" or not c.frames
        assert {t // CHUNK for t in c.frames} <= {c.start // CHUNK}   # its own chunk's frames
        assert c.end - c.start <= CHUNK   # a text view is judged on its best passage, not more
        assert len(c.text.split()) <= CarveConfig().judge_words


def test_scores_meet_on_one_scale_and_each_chunk_keeps_its_best_view():
    pooled = [Candidate(0, "chunk", 0, 4, 0.9, "text-clip", "a"), Candidate(0, "chunk", 0, 4, 0.2, "visual-frame", "", (1.0,)),
              Candidate(1, "chunk", 4, 8, 0.5, "text-clip", "b"), Candidate(1, "chunk", 4, 8, 0.8, "visual-frame", "", (5.0,))]
    scores = rescore(NO_QC, pooled, CarveConfig(rerank=False), CarveConfig().reranker)
    assert np.allclose(scores, [1.0, 0.0, 0.0, 1.0])   # min-max within each view's pool
    chosen = choose(pooled, scores, best_view=True)
    assert [(c.video, c.source) for c in chosen] == [(0, "text-clip"), (1, "visual-frame")]
    averaged = choose(pooled, scores, best_view=False)
    assert [c.score for c in averaged] == [0.5, 0.5]


class _Fixed:
    calibrated = False

    def score(self, qc, candidates):
        return np.array([{1.0: 0.0, 5.0: 1.0, 9.0: 2.0}[c.frames[0]] for c in candidates])


class _Unsure(_Fixed):
    """A calibrated judge (P(yes)) that finds nothing convincing."""

    calibrated = True

    def score(self, qc, candidates):
        return np.array([{1.0: 0.05, 5.0: 0.1, 9.0: 0.2}[c.frames[0]] for c in candidates])


def test_a_judged_candidate_takes_rerank_weight_of_the_judge_and_the_rest_of_its_own(monkeypatch):
    from videorag.methods import carve

    monkeypatch.setattr(carve, "shared_reranker", lambda config, resources: _Fixed())
    pooled = [Candidate(v, "chunk", 0, 4, own, "visual-frame", "", (t,))
              for v, own, t in ((0, 0.9, 1.0), (1, 0.5, 5.0), (2, 0.1, 9.0))]
    half = rescore(NO_QC, pooled, CarveConfig(rerank_depth=2), None)   # the third is below the depth
    assert np.allclose(half, [0.5 * 1 + 0.5 * 0, 0.5 * 0.5 + 0.5 * 1, 0.5 * 0.0])
    judge_alone = rescore(NO_QC, pooled, CarveConfig(rerank_depth=2, rerank_weight=1.0), None)
    assert np.allclose(judge_alone, [0.0, 1.0, 0.0])
    # a calibrated judge's P(yes) is taken as it is: unsure of both, it leaves retrieval's order
    monkeypatch.setattr(carve, "shared_reranker", lambda config, resources: _Unsure())
    unsure = rescore(NO_QC, pooled, CarveConfig(rerank_depth=2), None)
    assert np.allclose(unsure, [0.5 * 1 + 0.5 * 0.05, 0.5 * 0.5 + 0.5 * 0.1, 0.5 * 0.0])
    assert unsure[0] > unsure[1]


def test_carve_reranks_with_the_judge_where_it_can_run_else_e5(monkeypatch):
    from videorag.config import JudgeConfig, RerankConfig, SearchConfig
    from videorag.methods import carve
    from videorag import models

    judge = RerankConfig(backend="llm", model="/models/judge.gguf")
    config = SearchConfig(judge=JudgeConfig(reranker=judge))
    monkeypatch.setattr(models, "judge_available", lambda c: c is judge)
    assert carve.Carve(config).reranker() is judge   # `auto`: the judge, with the judge's own settings
    monkeypatch.setattr(models, "judge_available", lambda c: False)
    assert carve.Carve(config).reranker().backend == "e5"
    config.carve.reranker = RerankConfig(backend="cross-encoder", model="/ce")
    assert carve.Carve(config).reranker().backend == "cross-encoder"   # what is asked for is used


def _pooled(rag, cfg: CarveConfig, query: str):
    """(query context, the pooled candidates of the configured views) for `query`."""
    from videorag.methods.carve import pool

    rag.config.search.carve = cfg
    qc = rag.live.get().context(query, rag.config.search)
    views = qc.corpus.chunk_views
    return qc, pool(qc, views, [v for v in cfg.views if v in views.views], cfg.pool)


def _view_scaled(pooled) -> list[float]:
    """Each pooled candidate's retriever score, min-max normalised over its own view's pool."""
    out = []
    for c in pooled:
        same = [o.score for o in pooled if o.source == c.source]
        low, high = min(same), max(same)
        out.append(1.0 if high - low < 1e-12 else (c.score - low) / (high - low))
    return out


def _by_chunk(pooled, scores) -> dict[tuple, list[tuple[str, float]]]:
    chunks: dict[tuple, list[tuple[str, float]]] = {}
    for c, score in zip(pooled, scores):
        chunks.setdefault((c.video, c.start), []).append((c.source, score))
    return chunks


QUERY = "boil water"


@rendered
def test_without_rerank_the_chunks_keep_the_pooled_order_and_no_reranker_runs(rag, monkeypatch):
    from videorag.methods import carve

    monkeypatch.setattr(carve, "shared_reranker", lambda config, resources: pytest.fail("rerank=False ran a reranker"))
    cfg = CarveConfig(rerank=False)
    qc, pooled = _pooled(rag, cfg, QUERY)
    chosen = carve.Carve(rag.config.search).chunks(qc)
    views = _by_chunk(pooled, _view_scaled(pooled))
    assert len({c.source for c in pooled}) == 4 and len(chosen) == len(views) > 1
    for c in chosen:   # each chunk once, in its best view, at that view's normalised retriever score
        own = dict(views[(c.video, c.start)])
        assert c.score == pytest.approx(own[c.source]) == pytest.approx(max(own.values()))
    assert [c.score for c in chosen] == sorted((c.score for c in chosen), reverse=True)
    assert search(rag, QUERY, rerank=False)


@rendered
def test_without_choose_a_chunks_score_is_the_mean_of_its_views(rag, monkeypatch):
    from videorag.methods import carve

    cfg = CarveConfig(rerank=False, choose=False)
    qc, pooled = _pooled(rag, cfg, QUERY)
    chosen = carve.Carve(rag.config.search).chunks(qc)
    views = _by_chunk(pooled, _view_scaled(pooled))
    assert any(len(found) > 1 for found in views.values())   # some chunk was found by several views
    expected = {chunk: float(np.mean([s for _, s in found])) for chunk, found in views.items()}
    assert {(c.video, c.start): pytest.approx(c.score) for c in chosen} == expected
    assert [c.score for c in chosen] == sorted((c.score for c in chosen), reverse=True)
    best_view = carve.Carve(replace_config(rag, choose=True)).chunks(qc)
    assert {(c.video, c.start): c.score for c in best_view} != {(c.video, c.start): c.score for c in chosen}
    # with reranking: the mean of the reranked scores of the chunk's views
    monkeypatch.setattr(carve, "shared_reranker", lambda config, resources: _Recorder())
    cfg = CarveConfig(choose=False)
    qc, pooled = _pooled(rag, cfg, QUERY)
    rescored = carve.rescore(qc, pooled, cfg, cfg.reranker)
    expected = {chunk: float(np.mean([s for _, s in views])) for chunk, views in _by_chunk(pooled, rescored).items()}
    assert {(c.video, c.start): pytest.approx(c.score) for c in carve.Carve(rag.config.search).chunks(qc)} == expected
    assert search(rag, QUERY, choose=False)


def replace_config(rag, **carve_settings):
    from dataclasses import replace

    return replace(rag.config.search, carve=replace(rag.config.search.carve, **carve_settings))


@rendered
def test_a_single_view_pools_and_returns_only_that_view(rag):
    from videorag.methods import carve

    cfg = CarveConfig(views=("visual-clip",))
    qc, pooled = _pooled(rag, cfg, QUERY)
    chosen = carve.Carve(rag.config.search).chunks(qc)
    assert chosen and {c.source for c in pooled} == {c.source for c in chosen} == {"visual-clip"}
    # nothing to judge for a text reranker: the retriever's order stands
    assert [(c.video, c.start) for c in chosen] == [(c.video, c.start) for c in sorted(pooled, key=lambda c: -c.score)]
    assert search(rag, QUERY, views=("visual-clip",))


@rendered
def test_missing_views_are_refused(rag, tmp_path):
    with pytest.raises(ConfigError, match="carve.views"):
        CarveConfig(views=("audio",))
    plain = IngestConfig(chunk_seconds=CHUNK, max_segment_seconds=CHUNK)   # no captions, no frame vectors
    text_only = VideoRAG(tmp_path / "text-only", Config(ingest=plain), asr=rag.library.asr, embedder=rag.library.embedder)
    assert text_only.add([rag.videos]).count("added") == 2
    text_only.config.search.carve = CarveConfig(views=("visual-frame", "text-frame"))
    with pytest.raises(IndexError_, match="none of the views"):
        text_only.search("boil water", method="carve")
    text_only.config.search.carve = CarveConfig()   # the views it has are used
    assert path_of(text_only.search("boil water", method="carve")[0]) == "tea.mp4"


@rendered
def test_ask_interleaves_views_and_cites_moments(rag):
    rag.config.search.carve = CarveConfig()
    rag.config.generate = GenerateConfig(backend="openai", frames_per_video=4)
    evidence = rag.evidence("how long should the tea steep", method="carve")
    assert len(evidence) == 3 and all(e.view for e in evidence)
    content = OpenAIGenerator(GenerateConfig(backend="openai")).messages("q", evidence)[1]["content"]
    texts = [p["text"] for p in content if p["type"] == "text"]
    for number, ev in enumerate(evidence, 1):
        label = next(t for t in texts if f"video {number} (" in t)
        assert label.startswith("Frames above") == ev.shows_frames
        assert ev.shows_frames == ev.view.startswith("visual")
        assert ev.citation.end - ev.citation.start <= rag.config.search.moments.max_seconds
    images = sum(p["type"] == "image_url" for p in content)
    assert images == sum(len(e.frames) for e in evidence if e.shows_frames)


def test_clip_vectors_come_from_a_video_tower_when_the_backend_has_one():
    class Tower:
        model_name = "tower"

        def embed_video(self, images):
            return np.array([float(len(images)), 0.0])

    times = [float(t) for t in range(10)]
    vectors = np.eye(2)[[t % 2 for t in range(10)]].astype(np.float32)
    views = chunk_views(times, vectors, 4.0, 10.0, Tower(), [b"jpeg"] * 10)
    assert [(v.start, v.end) for v in views] == [(0.0, 4.0), (4.0, 8.0), (8.0, 10.0)]
    assert [v.vector[0] for v in views] == [4.0, 4.0, 2.0] and clip_label(Tower()) == "tower (video tower)"
    plain = chunk_views(times, vectors, 4.0, 10.0)   # no tower: the mean of the frame vectors
    assert np.allclose(plain[0].vector, np.full(2, 2 ** -0.5))
    rng = np.random.default_rng(0)
    many = chunk_views([t / 2 for t in range(40)], rng.normal(size=(40, 8)).astype(np.float32), 10.0, 20.0)
    assert [len(v.keyframes) for v in many] == [5, 5] and all(10 * i <= min(v.keyframes) for i, v in enumerate(many))
