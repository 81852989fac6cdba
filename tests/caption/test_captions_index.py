"""The index's captions table: written with a video, read back sorted, live videos only,
removed with the video, one captioner per index. Model-free (hashing embedder)."""
from __future__ import annotations

import numpy as np
import pytest

from videorag.embed.hashing import HashingEmbedder
from videorag.errors import IndexError_
from videorag.index import VideoIndex, VideoRecord
from videorag.types import Caption, Segment

EMBEDDER = HashingEmbedder(dim=32)


def record(video_id: str, captions: list[Caption]) -> VideoRecord:
    segments = [Segment(0.0, 4.0, f"words of {video_id}")]
    vectors = EMBEDDER.embed([s.text for s in segments])
    return VideoRecord(video_id, f"/v/{video_id}.mp4", 1, 1, 4.0, "asr", segments, vectors, segments, vectors,
                       captions=captions, caption_vectors=EMBEDDER.embed([c.text for c in captions]))


@pytest.fixture()
def index(tmp_path):
    index = VideoIndex.open_or_create(tmp_path / "ix", EMBEDDER.model_name, EMBEDDER.dim)
    index.enable_captions("ocr", "tesseract:eng")
    index.add(record("b", [Caption(2.0, "on screen: later"), Caption(0.0, "on screen: first")]))
    index.add(record("a", [Caption(1.0, "said: hello")]))
    return index


def test_captions_are_sorted_with_vectors(index):
    table = index.captions()
    assert table.column_names == ["video_id", "t", "text", "vector"]
    assert list(zip(table["video_id"].to_pylist(), table["t"].to_pylist())) == [("a", 1.0), ("b", 0.0), ("b", 2.0)]
    vectors = np.asarray(table["vector"].to_pylist(), np.float32)
    assert np.allclose(vectors, EMBEDDER.embed(table["text"].to_pylist()))
    assert index.captions("b")["text"].to_pylist() == ["on screen: first", "on screen: later"]
    assert index.stats()["captions"] == 3 and index.has_captions


def test_reopened_index_keeps_captions_and_refuses_another_captioner(index):
    again = VideoIndex.open(index.location)
    assert again.has_captions and again.captions().num_rows == 3
    again.enable_captions("ocr", "tesseract:eng")  # the same one: fine
    with pytest.raises(IndexError_, match="captioner 'ocr'.*--captions ocr"):
        again.enable_captions("openai", "qwen2.5-vl")
    with pytest.raises(IndexError_, match="tesseract:eng"):
        again.enable_captions("ocr", "tesseract:deu")


def test_remove_drops_captions_and_orphans_are_hidden(index):
    index.remove("b")
    assert index.captions()["video_id"].to_pylist() == ["a"]
    assert index._tables["captions"].count_rows() == 1   # deleted, not merely hidden
    index._tables["videos"].delete("video_id = 'a'")     # an interrupted ingest leaves orphan rows
    assert index.captions().num_rows == 0 and index.captions("a").num_rows == 0
    assert index.remove_orphans() == 1 and index._tables["captions"].count_rows() == 0


def test_index_without_captioner(tmp_path):
    index = VideoIndex.open_or_create(tmp_path / "plain", EMBEDDER.model_name, EMBEDDER.dim)
    assert not index.has_captions and index.captions().num_rows == 0
    assert index.captions().column_names == ["video_id", "t", "text", "vector"]
    assert index.stats()["captions"] == 0
    with pytest.raises(IndexError_, match="enable_captions"):
        index.add(record("c", [Caption(0.0, "x")]))
    assert index.video_ids() == set()
