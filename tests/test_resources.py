"""Models and pools belong to their owner (`videorag.resources.Resources`), not to the process:
two `VideoRAG`s side by side share nothing, closing one leaves the other working, and within one
the judge, the generator and the methods share one copy of each model."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from videorag import Config, VideoRAG
from videorag.config import GenerateConfig, RerankConfig
from videorag.generate import create_generator
from videorag.llm.gguf import local_model
from videorag.rerank import shared_reranker
from videorag.resources import Resources


class _Model:
    def __init__(self):
        self.closed = 0

    def close(self):
        self.closed += 1


def test_a_thing_is_made_once_per_key_and_released_with_its_owner():
    resources, made = Resources(), []
    first = resources.get("m", lambda: made.append(1) or _Model())
    assert resources.get("m", _Model) is first and made == [1]
    pool = resources.get("pool", lambda: ThreadPoolExecutor(1))
    resources.close()
    assert first.closed == 1 and pool._shutdown
    assert resources.get("m", _Model) is not first   # usable again: made anew


def test_a_failing_release_does_not_keep_the_others_open():
    resources, kept = Resources(), _Model()

    class _Broken:
        def close(self):
            raise RuntimeError("stuck")

    resources.get("a", lambda: kept)
    resources.get("b", _Broken)
    resources.close()
    assert kept.closed == 1


def test_two_videorags_side_by_side_share_no_model(tmp_path):
    one, two = VideoRAG(tmp_path / "a", Config()), VideoRAG(tmp_path / "b", Config())
    judge = RerankConfig(backend="e5")
    assert shared_reranker(judge, one.resources) is shared_reranker(judge, one.resources)
    assert shared_reranker(judge, one.resources) is not shared_reranker(judge, two.resources)
    assert local_model("/models/q.gguf", one.resources) is not local_model("/models/q.gguf", two.resources)
    kept = shared_reranker(judge, two.resources)
    one.close()
    assert shared_reranker(judge, two.resources) is kept   # the other one's models stay loaded


def test_the_generator_and_the_judge_of_one_videorag_share_a_model_file(tmp_path):
    """Both ask their owner's resources for the file's server: one copy in memory."""
    with VideoRAG(tmp_path / "a", Config()) as rag:
        generator = create_generator(GenerateConfig(backend="llamacpp", model="/models/q.gguf"),
                                     resources=rag.resources)
        generator.model_path = "/models/q.gguf"
        assert local_model(generator.model_path, generator.resources) is local_model("/models/q.gguf", rag.resources)
    assert ("gguf", "/models/q.gguf") not in rag.resources   # closed with the VideoRAG


def test_a_model_loading_for_one_key_does_not_hold_up_another():
    """A lock per key: while one thing is being made (a model loading for seconds), the owner's
    other things are still handed out; two askers of the same key get one thing."""
    import threading

    resources, loading, release = Resources(), threading.Event(), threading.Event()
    resources.get("ready", _Model)

    def slow():
        loading.set()
        release.wait(10)
        return _Model()

    with ThreadPoolExecutor(3) as pool:
        first, second = pool.submit(resources.get, "slow", slow), pool.submit(resources.get, "slow", slow)
        assert loading.wait(10)
        assert pool.submit(resources.get, "ready", _Model).result(timeout=5) is not None   # not blocked
        release.set()
        assert first.result(timeout=10) is second.result(timeout=10)


def test_what_a_videorag_and_its_library_made_is_released_by_close(tmp_path):
    """Their models are their `Resources`' (one lifetime): `close()` releases them, and they are
    made anew when next needed; a model given to the constructor stays the caller's."""
    from videorag.embed.hashing import HashingEmbedder

    given = HashingEmbedder()
    rag = VideoRAG(tmp_path / "a", Config(), embedder=given)
    generator, stage = rag.generator, rag.answerability
    assert rag.generator is generator and rag.query_embedder is given and rag.library.embedder is given
    assert (rag, "generator") in rag.resources and (rag, "answerability") in rag.resources
    rag.close()
    assert (rag, "generator") not in rag.resources
    assert rag.generator is not generator and rag.answerability is not stage and rag.library.embedder is given


def test_the_pipeline_says_when_the_generator_starts_writing(tmp_path):
    """Progress goes out through `events` (given to the constructor), not by wrapping members."""
    heard: list[str] = []

    class _Covering:
        name = "covering"

        def generate(self, question, evidence):
            raise AssertionError("not asked")

        def covered(self, question, evidence):
            heard.append(f"covered {question}")
            return 0.5

    rag = VideoRAG(tmp_path / "a", Config(), generator=_Covering(), events=heard.append)
    assert rag._covered("how do I boil water?")([]) == 0.5   # answerability's question evaluates the prompt
    assert heard == ["writing", "covered how do I boil water?"]
