"""`videorag shard` on a real index, and `videorag optimize` rebalancing the shards over what was
indexed since."""
from __future__ import annotations

import pytest

from tests.reliability.media import tiny_video, tiny_videos
from videorag import Config, VideoRAG
from videorag.embed.hashing import HashingEmbedder
from videorag.errors import IndexError_
from videorag import snapshot
from videorag.shard.split import count, manifest, split


def test_shards_cover_the_index_and_optimize_rebalances_them(tmp_path):
    tiny_videos(tmp_path / "first", 3, seconds=6)
    rag = VideoRAG(tmp_path / "index", Config(), embedder=HashingEmbedder())
    rag.add([tmp_path / "first"])
    with pytest.raises(IndexError_, match="fewer shards"):
        split(rag.library, 4)
    found = split(rag.library, 2)
    assert sorted(s["videos"] for s in found["shards"]) == [1, 2] and count(tmp_path / "index") == 2
    (tmp_path / "more").mkdir()
    for i in range(3, 6):
        tiny_video(tmp_path / "more" / f"video-{i}.mp4", 6, seed=i)
    rag.add([tmp_path / "more"])
    rag.library.optimize()
    shards = manifest(tmp_path / "index")["shards"]
    assert [s["videos"] for s in shards] == [3, 3]
    held = [v for s in shards for v in snapshot.manifest(s["folder"])["video_ids"]]
    assert sorted(held) == sorted(snapshot.manifest(tmp_path / "index")["video_ids"]) and len(held) == 6


def test_the_shards_of_two_indexes_get_their_own_serve_applications(tmp_path):
    """Two indexes served from one Ray cluster: each index's shards are their own applications
    (one index's `serve --ray` must not redeploy the other's); the same index again gets the
    same names, so serving it anew updates its applications in place."""
    from videorag.shard.ray_serve import app_name

    def found(index: str) -> dict:
        return {"shards": [{"folder": str(tmp_path / index / "shards" / str(k))} for k in range(2)]}

    names = [app_name(found(index), k) for index in ("a", "b") for k in range(2)]
    assert len(set(names)) == 4
    again = {"shards": [{"folder": str(tmp_path / "a" / "shards" / "." / str(k))} for k in range(2)]}
    assert [app_name(again, k) for k in range(2)] == names[:2]


def test_replicas_that_the_cluster_cannot_place_are_refused_not_waited_for():
    """Serve would wait forever for a replica no node has the CPUs for (a second index's shards on
    a small cluster whose CPUs the first holds): `deploy` refuses it with the fix."""
    from videorag.errors import ConfigError
    from videorag.shard.ray_serve import placeable

    placeable(4, 0.5, 2.0)  # fits exactly
    with pytest.raises(ConfigError, match="free CPUs") as refused:
        placeable(2, 1.0, 0.0)
    assert "serve shutdown" in refused.value.hint
