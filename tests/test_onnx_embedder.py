"""The int8 ONNX runtime of the default text model: close to the torch model, usable on its index."""
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


@pytest.fixture(scope="module")
def onnx():
    return create_embedder(EmbedConfig(backend="onnx"))


def test_vectors_agree_with_the_torch_model(onnx, embedder):
    a, b = onnx.embed(TEXTS), embedder.embed(TEXTS)
    assert a.shape == b.shape == (len(TEXTS), 384) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert (a * b).sum(axis=1).min() > 0.995
    assert onnx.model_name == embedder.model_name and onnx.fingerprint == embedder.fingerprint
    assert onnx.embed([]).shape == (0, 384)


def test_only_the_model_it_ships(onnx):
    with pytest.raises(ModelNotFoundError, match="onnx backend runs"):
        create_embedder(EmbedConfig(backend="onnx", model="some/other-model"))


def test_a_torch_made_index_answers_onnx_queries(sample_dir, make_rag, onnx, tmp_path):
    from videorag import Config, VideoRAG

    folder, _ = sample_dir
    torch_rag = make_rag()
    torch_rag.add([folder])
    onnx_rag = VideoRAG(torch_rag.location.local, Config(embed=EmbedConfig(backend="onnx")), embedder=onnx)
    assert torch_rag.library.index.stats()["videos"] == len(SAMPLES)
    for query, expected in (("how do I patch a tube", "fix-a-flat-bike-tire"),
                            ("how hot should the water be for coffee", "brew-pour-over-coffee")):
        onnx_hits, torch_hits = onnx_rag.search(query, 3), torch_rag.search(query, 3)
        assert len(onnx_hits) == 3 and Path(onnx_hits[0].path).stem == expected, onnx_hits
        assert [h.video_id for h in onnx_hits] == [h.video_id for h in torch_hits]
