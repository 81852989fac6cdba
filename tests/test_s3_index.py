"""An index on S3 (`--index s3://bucket/prefix`), against moto's S3 server started on 127.0.0.1."""
import json
import os
import socket

import pytest

from videorag import Config, VideoRAG
from videorag.cli import main
from videorag.errors import IndexBusy
from videorag.index.location import ObjectStore, locate
from videorag.index.lock import LOCK_FILE, ObjectLock, object_lock

BUCKET = "videorag-test"


@pytest.fixture(scope="module")
def s3_server():
    from moto.server import ThreadedMotoServer

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


@pytest.fixture()
def s3(s3_server, monkeypatch, tmp_path):
    import boto3

    for name, value in {"AWS_ENDPOINT_URL": s3_server, "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                        "AWS_REGION": "us-east-1", "VIDEORAG_CACHE": str(tmp_path / "cache")}.items():
        monkeypatch.setenv(name, value)
    client = boto3.client("s3", endpoint_url=s3_server)
    if BUCKET not in [b["Name"] for b in client.list_buckets()["Buckets"]]:
        client.create_bucket(Bucket=BUCKET)
    return client


def _keys(client, prefix: str) -> set[str]:
    found = client.list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("Contents", [])
    return {item["Key"][len(prefix) + 1:] for item in found}


def test_index_and_search_an_index_on_s3(s3, short_video, asr, embedder, capsys):
    uri = f"s3://{BUCKET}/idx-search"
    rag = VideoRAG(uri, Config(), asr=asr, embedder=embedder)
    assert rag.add([short_video[0]]).count("added") == 1
    keys = _keys(s3, "idx-search")
    assert {"videorag.json", ".changed"} <= keys and any(k.startswith("units.lance/") for k in keys)
    assert LOCK_FILE not in keys                                    # released after the write
    reader = VideoRAG(uri, Config(), embedder=embedder)             # another machine's view
    hit = reader.search("how long should the tea steep")[0]
    assert hit.path.endswith("make-tea.mp4") and hit.start < hit.end
    assert reader.library.info()["search"]["snapshot"] == "fresh" and reader.library.info()["videos"] == 1
    assert rag.add([short_video[0]]).count("unchanged") == 1        # incremental on S3 too
    assert main(["search", "steep the tea", "--index", uri, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["video_id"] == hit.video_id
    assert rag.library.remove([hit.video_id]) == [hit.video_id]
    assert reader.search("how long should the tea steep") == []


def test_the_s3_writer_lock_excludes_another_writer_and_outlives_no_one(s3):
    store = ObjectStore(f"s3://{BUCKET}/idx-lock")
    held = object_lock(store)
    with held.hold():
        other = ObjectLock(store)                                    # another process's lock
        with pytest.raises(IndexBusy, match="being written"):
            with other.hold(wait=0):
                pass
    assert LOCK_FILE not in _keys(s3, "idx-lock")
    dead = json.dumps({"host": socket.gethostname(), "pid": _dead_pid(), "since": 0})
    s3.put_object(Bucket=BUCKET, Key=f"idx-lock/{LOCK_FILE}", Body=dead.encode())  # a crashed writer's
    with held.hold(wait=5):
        assert json.loads(store.read(LOCK_FILE))["pid"] == os.getpid()


def test_locations_are_parsed_and_a_missing_bucket_is_reported(s3):
    assert str(locate(f"s3://{BUCKET}/a/b/")) == f"s3://{BUCKET}/a/b"
    with pytest.raises(Exception, match="not supported"):
        locate("gs://bucket/x")
    with pytest.raises(Exception, match="cannot be reached"):
        ObjectStore("s3://no-such-bucket-here/x").create()


def _dead_pid() -> int:
    pid = 2 ** 22 - 1
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        except OSError:
            pass
        pid -= 1
