"""The int8 ONNX runtime of the default text model — what embeds passages and queries by default, with
no torch — close to the torch model; an index the torch model made keeps answering, and its passages
are never mixed with another runtime's."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from videorag.config import EmbedConfig
from videorag.demo.corpus import SAMPLES
from videorag.embed import create_embedder
from videorag.errors import ModelNotFoundError

TEXTS = ["how do I patch a bicycle inner tube", "Boil fresh water in a kettle.",
         "Steep for three minutes, then remove the bag. " * 12, "x"]


TORCH = EmbedConfig(backend="sentence-transformers")


@pytest.fixture(scope="module")
def onnx():
    return create_embedder(EmbedConfig(backend="onnx"))


@pytest.fixture(scope="module")
def torch_model():
    return create_embedder(TORCH)


def test_the_default_is_onnx(embedder):
    from videorag.embed.onnx_minilm import OnnxMiniLMEmbedder

    assert isinstance(embedder, OnnxMiniLMEmbedder)   # (the session's default embedder)


def test_vectors_agree_with_the_torch_model(onnx, torch_model):
    a, b = onnx.embed(TEXTS), torch_model.embed(TEXTS)
    assert a.shape == b.shape == (len(TEXTS), 384) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert (a * b).sum(axis=1).min() > 0.995
    assert onnx.model_name == torch_model.model_name and onnx.fingerprint == torch_model.fingerprint
    assert onnx.embed([]).shape == (0, 384)


def test_texts_embedded_by_length_come_back_in_their_order_with_the_same_vectors(onnx):
    texts = [f"{'step ' * (n % 7)}number {n} of the list" for n in range(40)]   # lengths out of order
    batched = onnx.embed(texts)
    alone = np.concatenate([onnx.embed([t]) for t in texts])
    assert batched.shape == (40, 384) and np.allclose(batched, alone, atol=1e-6)


def test_only_the_model_it_ships(onnx):
    with pytest.raises(ModelNotFoundError, match="onnx backend runs"):
        create_embedder(EmbedConfig(backend="onnx", model="some/other-model"))


def test_a_torch_made_index_answers_onnx_queries(sample_dir, asr, onnx, torch_model, tmp_path):
    """An index embedded the old way (passages on torch) answers as before; what it adds by default
    is embedded on torch again (its recorded runtime); ONNX passages into it are refused in words."""
    from videorag import Config, VideoRAG
    from videorag.errors import IndexError_

    folder, _ = sample_dir
    torch_rag = VideoRAG(tmp_path / "index", Config(embed=TORCH), asr=asr, embedder=torch_model)
    torch_rag.add([folder])
    assert torch_rag.library.meta()["embed_backend"] == "sentence-transformers"
    default = VideoRAG(torch_rag.location.local, Config(), asr=asr)   # what a user's `videorag search` makes
    assert torch_rag.library.index.stats()["videos"] == len(SAMPLES)
    assert default.library.embed_backend == "sentence-transformers"   # adds stay on the index's runtime
    for query, expected in (("how do I patch a tube", "fix-a-flat-bike-tire"),
                            ("how hot should the water be for coffee", "brew-pour-over-coffee")):
        onnx_hits, torch_hits = default.search(query, 3), torch_rag.search(query, 3)
        assert len(onnx_hits) == 3 and Path(onnx_hits[0].path).stem == expected, onnx_hits
        assert [h.video_id for h in onnx_hits] == [h.video_id for h in torch_hits]
    assert type(default.query_embedder) is type(onnx)   # queries on ONNX all the same
    mixed = VideoRAG(torch_rag.location.local, Config(embed=EmbedConfig(backend="onnx")), asr=asr, embedder=onnx)
    with pytest.raises(IndexError_, match="embedded by sentence-transformers.*--embed-backend sentence-transformers"):
        mixed.add([folder])


def test_the_default_install_path_never_imports_torch(short_video, tmp_path):
    """Index a video and search it with the defaults, in a process of its own: no torch."""
    import subprocess
    import sys

    script = (
        "import sys; from videorag import VideoRAG; rag = VideoRAG(sys.argv[1]); rag.add([sys.argv[2]]); "
        "assert rag.search('how long does the tea steep')[0].path.endswith('make-tea.mp4'); "
        "assert rag.library.meta()['embed_backend'] == 'onnx'; "
        "print(sorted(m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "index"), str(short_video[0])],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"
