"""The visual path end to end with real architectures built without weights (random-tiny):
frame embeddings in the index, videorag-v / -vt search, query-aware generation frames,
train-frame-selector, and a refused mismatched model."""
from __future__ import annotations

import json

import numpy as np
import pytest

from videorag import Config, GenerateConfig, IngestConfig, SearchConfig, VideoRAG
from videorag.cli import main
from videorag.errors import IndexError_
from videorag.visual import create_visual

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("backend", ["clip", "siglip", "xclip"])
def test_backends_share_the_contract(backend):
    model = create_visual(backend, "random-tiny")
    images = [np.full((90, 160, 3), 25 * i, np.uint8) for i in range(9)]
    frames, texts = model.embed_images(images), model.embed_texts(["a bike wheel", "paint"])
    assert frames.shape == (9, model.dim) and texts.shape == (2, model.dim)
    assert np.allclose(np.linalg.norm(frames, axis=1), 1, atol=1e-4)
    again = create_visual(backend, "random-tiny").embed_texts(["a bike wheel"])
    assert np.allclose(again[0], texts[0], atol=1e-5)  # fixed random architecture


@pytest.fixture(scope="module")
def visual_rag(tmp_path_factory, sample_dir, asr, embedder):
    config = Config(ingest=IngestConfig(visual="clip", visual_model="random-tiny"))
    rag = VideoRAG(tmp_path_factory.mktemp("vis") / "index", config, asr=asr, embedder=embedder)
    assert rag.add([sample_dir[0]]).count("added") == 5
    return rag


def test_frames_are_embedded_and_reduced(visual_rag):
    index = visual_rag.library.index
    assert index.meta["visual_model"] == "clip:random-tiny" and index.meta["visual_dim"] == 64
    vectors = index.visual_vectors()
    assert len(vectors) == 5
    some = next(iter(vectors))
    times, frame_vectors = index.frame_vectors(some)
    assert len(times) == len(index.frames(some)) and frame_vectors.shape[1] == 64


@pytest.mark.parametrize("method", ["videorag-v", "videorag-vt"])
def test_visual_methods_search(visual_rag, method):
    rag = VideoRAG(visual_rag.location.local, Config(search=SearchConfig(method=method)), embedder=visual_rag.library.embedder)
    hits = rag.search("how do I patch a bicycle tube", top_k=5)
    assert len({h.video_id for h in hits}) == 5 and hits[0].end > hits[0].start
    if method == "videorag-vt":  # text still carries the ensemble on weightless frames
        assert "fix-a-flat-bike-tire" in hits[0].path


def test_text_only_index_refuses_visual_method(demo_rag):
    rag = VideoRAG(demo_rag.location.local, Config(search=SearchConfig(method="videorag-v")),
                   embedder=demo_rag.library.embedder)
    with pytest.raises(IndexError_, match="needs frame embeddings"):
        rag.search("anything")


def test_mismatched_visual_model_is_refused(visual_rag):
    config = Config(ingest=IngestConfig(visual="siglip", visual_model="random-tiny"),
                    search=SearchConfig(method="videorag-vt"))
    with pytest.raises(IndexError_, match="clip:random-tiny"):
        VideoRAG(visual_rag.location.local, config, embedder=visual_rag.library.embedder).search("paint")


def test_train_frame_selector_and_generation_frames(visual_rag, tmp_path, capsys):
    ids = {r["path"].split("/")[-1][:-4]: r["video_id"] for r in visual_rag.library.index.videos(["video_id", "path"]).to_pylist()}
    golden = tmp_path / "qa.jsonl"
    golden.write_text("\n".join(json.dumps({"query": q, "relevant": [ids[slug]]}) for q, slug in [
        ("patch a bicycle tube", "fix-a-flat-bike-tire"), ("paint the wall", "paint-a-wall"),
        ("brew coffee", "brew-pour-over-coffee"), ("clean the pan", "clean-a-cast-iron-pan")]))
    assert main(["train-frame-selector", "--index", str(visual_rag.location.local), "--qa", str(golden),
                 "--epochs", "5"]) == 0
    assert "retrieval: 24 labelled subsets" in capsys.readouterr().err
    assert (visual_rag.location.local / "frame_scorer.pt").is_file()
    rag = VideoRAG(visual_rag.location.local, Config(generate=GenerateConfig(backend="openai", frames_per_video=4,
                                                                         frame_candidates=8)),
                   embedder=visual_rag.library.embedder)
    assert "retrieval" in rag.library.frame_nets
    evidence = rag.evidence("which roller pattern for painting the wall?")   # what an image-reading generator gets
    frames = next(e.frames for e in evidence if e.hit.video_id == ids["paint-a-wall"])
    assert len(frames) == 4 and [f.t for f in frames] == sorted(f.t for f in frames)
    from videorag.index import VideoIndex

    rows = VideoIndex.open(visual_rag.location.local)._tables["visual"].to_arrow().to_pylist()
    assert {len(r["frames"]) for r in rows} == {4}  # the trained scorer keeps 4 of the 8 k-means frames


def _items(rag) -> list:
    from videorag.eval.datasets import EvalItem

    rows = rag.library.index.videos(["video_id", "path"]).to_pylist()
    ids = {r["path"].split("/")[-1][:-4]: r["video_id"] for r in rows}
    return [EvalItem(str(i), q, [ids[slug]]) for i, (q, slug) in enumerate([
        ("patch a bicycle tube", "fix-a-flat-bike-tire"), ("paint the wall", "paint-a-wall")])]


def test_trained_scorers_reach_the_library_and_its_snapshot(visual_rag):
    """The library that saved the scorers uses them at once (its next ingest chooses frames with
    them), and its search snapshot is renewed with the re-chosen visual vectors."""
    from videorag.finetune.frame_selector import train_frame_selector
    from videorag import snapshot

    library = visual_rag.library
    assert library.ingestor() is not None   # the library's scorers read before training
    report = train_frame_selector(visual_rag, _items(visual_rag), epochs=3)
    assert report["refreshed_videos"] == 5 and report["retrieval"]["samples"] == 12
    assert library.ingestor().retrieval_net is library.frame_nets["retrieval"]
    assert snapshot.fresh(library.location)
    corpus = snapshot.load(library.location, snapshot.token(library.location))
    stored = library.index.visual_vectors()
    assert np.allclose(corpus.visual, np.stack([stored[v] for v in corpus.video_ids]), atol=1e-6)


def test_scorers_are_saved_under_the_writer_lock(visual_rag):
    """With another writer holding the index, saving scorers waits for it (here: gives up at
    once) and writes nothing: neither the scorer file nor a video's frames."""
    import threading

    from videorag.errors import IndexBusy
    from videorag.library import Library
    from videorag.visual import scorer

    path = visual_rag.location.local / scorer.SCORER_FILE
    before = (path.read_bytes() if path.is_file() else None, visual_rag.library.index.visual_vectors())
    library = Library(visual_rag.location.local, Config(lock_wait=0), embedder=visual_rag.library.embedder)
    held, release = threading.Event(), threading.Event()

    def writer():
        with visual_rag.library.index.writer():
            held.set()
            release.wait(60)

    other = threading.Thread(target=writer)
    other.start()
    try:
        assert held.wait(60)
        with pytest.raises(IndexBusy):
            library.save_frame_nets({"retrieval": scorer.build_retrieval_net(64)}, {"dim": 64, "subset": 4})
    finally:
        release.set()
        other.join()
    assert (path.read_bytes() if path.is_file() else None) == before[0]
    after = library.index.visual_vectors()
    assert after.keys() == before[1].keys() and all(np.array_equal(after[v], before[1][v]) for v in after)
