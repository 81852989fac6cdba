"""Benchmarks that cache an index name it after the `--set` items that change what it holds."""
from benchmarks.driver import ingest_items


def test_embedder_settings_name_an_index_of_their_own():
    items = ["ingest.segment_context=1", "embed.model=all-mpnet-base-v2", "embed.backend=llamacpp",
             "embed.query_backend=sentence-transformers", "embed.batch_size=32", "search.alpha=0.5"]
    assert ingest_items(items) == items[:3]   # query-side and batch settings share the index
