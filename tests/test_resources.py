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
