"""Optional capabilities are Protocols checked with `isinstance`, not methods looked up by name: a
backend that renamed its `covered` or `stream` would silently lose the capability. These hold
each backend to the capabilities the pipeline relies on it for."""
from __future__ import annotations

import pytest

from videorag.embed import EmbedsQueries
from videorag.embed.e5 import E5Model
from videorag.generate import Completes, CompletesWithImages, Covers, Streams
from videorag.generate.extractive import ExtractiveGenerator
from videorag.generate.llamacpp import LlamaCppGenerator
from videorag.generate.openai import OpenAIGenerator
from videorag.methods.carve import Carve
from videorag.methods.judged import Judged
from videorag.methods.rag_adapter import RAGAdapter
from videorag.methods.text import BM25Method, TextVideoRAG
from videorag.retrieve.base import GathersEvidence, SharesStatistics


@pytest.mark.parametrize(("backend", "capabilities", "lacks"), [
    (LlamaCppGenerator, (Streams, Covers, Completes), (CompletesWithImages,)),   # the default generator
    (ExtractiveGenerator, (Streams,), (Covers, Completes)),
    (OpenAIGenerator, (Completes, CompletesWithImages), (Covers,)),
    (Carve, (GathersEvidence,), ()),
    (RAGAdapter, (GathersEvidence,), ()),
    (Judged, (GathersEvidence,), ()),
    (TextVideoRAG, (SharesStatistics,), (GathersEvidence,)),   # sharded search merges its statistics
    (BM25Method, (), (GathersEvidence, SharesStatistics)),
    (E5Model, (EmbedsQueries,), ()),   # e5's "query: " prefix
])
def test_each_backend_has_the_capabilities_the_pipeline_relies_on(backend, capabilities, lacks):
    for capability in capabilities:
        assert issubclass(backend, capability), f"{backend.__name__} lost {capability.__name__}"
    for capability in lacks:
        assert not issubclass(backend, capability), f"{backend.__name__} is not meant to be {capability.__name__}"
