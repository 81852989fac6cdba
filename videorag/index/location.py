"""Where an index lives: a local directory or an S3 prefix (`s3://bucket/prefix`).

A location gives LanceDB its URI and storage options, reads and replaces the index's small files
(`videorag.json`, the change marker) and names the writer lock. `local` is a directory on this
machine for what is derived from the index (its search snapshot, the frame scorer): the index
directory itself, or for S3 a cache folder (`$VIDEORAG_CACHE`, default `~/.cache/videorag`).

S3 settings come from the usual AWS variables: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
`AWS_REGION` / `AWS_DEFAULT_REGION`, and `AWS_ENDPOINT_URL` for an S3-compatible server (MinIO,
Ceph, moto)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..errors import IndexError_


def locate(spec: str | Path | Location) -> Location:
    """The location named by a path or URI (a location is returned as it is)."""
    if isinstance(spec, (LocalDir, ObjectStore)):
        return spec
    text = str(spec)
    if text.startswith("s3://"):
        return ObjectStore(text)
    if "://" in text:
        raise IndexError_(f"index location {text!r} is not supported", "use a local directory or s3://bucket/prefix")
    return LocalDir(Path(text).expanduser())


class LocalDir:
    def __init__(self, path: Path):
        if path.exists() and not path.is_dir():
            raise IndexError_(
                f"index path {path} is a file, not a directory",
                "pass --index a directory (new or made by videorag index)",
            )
        self.path = self.local = path
        self.uri, self.storage_options = str(path), None

    def __str__(self) -> str:
        return str(self.path)

    def create(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)

    def read(self, name: str) -> str:
        return (self.path / name).read_text()

    def exists(self, name: str) -> bool:
        return (self.path / name).is_file()

    def write(self, name: str, text: str) -> None:
        """Replace `name` atomically (readers see the old or the new content, never a mix)."""
        tmp = self.path / f"{name}.{os.getpid()}.tmp"
        tmp.write_text(text)
        os.replace(tmp, self.path / name)

    def stamp(self, name: str):
        """Changes whenever `name` is replaced (None when absent); one `stat`."""
        try:
            stat = (self.path / name).stat()
        except OSError:
            return None
        return stat.st_ino, stat.st_mtime_ns, stat.st_size

    def lock(self):
        from .lock import writer_lock

        return writer_lock(self.path)

    def disk_bytes(self) -> int:
        return sum(f.stat().st_size for f in self.path.rglob("*") if f.is_file())


class ObjectStore:
    """An index under an S3 prefix. Small files are objects; `stamp` costs one HEAD request."""

    def __init__(self, uri: str):
        bucket, _, prefix = uri[len("s3://") :].partition("/")
        if not bucket:
            raise IndexError_(f"index location {uri!r} names no bucket", "use s3://bucket/prefix")
        self.bucket, self.prefix = bucket, prefix.strip("/")
        self.uri = f"s3://{bucket}/{self.prefix}" if self.prefix else f"s3://{bucket}"
        endpoint = os.environ.get("AWS_ENDPOINT_URL")
        region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
        self.storage_options = {
            k: v
            for k, v in {
                "aws_endpoint": endpoint,
                "allow_http": "true" if (endpoint or "").startswith("http://") else None,
                "aws_region": region,
            }.items()
            if v
        }
        cache = Path(os.environ.get("VIDEORAG_CACHE", "~/.cache/videorag")).expanduser()
        self.local = cache / "s3" / bucket / hashlib.sha256(self.uri.encode()).hexdigest()[:16]
        self._client = None

    def __str__(self) -> str:
        return self.uri

    @property
    def client(self):
        if self._client is None:
            from ..registry import require

            boto3 = require("boto3", "s3")
            self._client = boto3.client("s3", endpoint_url=os.environ.get("AWS_ENDPOINT_URL"))
        return self._client

    def key(self, name: str) -> str:
        return f"{self.prefix}/{name}" if self.prefix else name

    def create(self) -> None:
        try:
            self.client.head_bucket(Bucket=self.bucket)
        except Exception as exc:
            raise IndexError_(
                f"bucket {self.bucket!r} cannot be reached ({exc.__class__.__name__}: {exc})",
                "create it, or check AWS_ENDPOINT_URL and the AWS credentials",
            ) from exc
        self.local.mkdir(parents=True, exist_ok=True)

    def read(self, name: str) -> str:
        try:
            return self.client.get_object(Bucket=self.bucket, Key=self.key(name))["Body"].read().decode()
        except self.client.exceptions.NoSuchKey as exc:
            raise FileNotFoundError(f"{self.uri}/{name}") from exc
        except self.client.exceptions.ClientError as exc:
            raise _refused(self.uri, name, exc) from exc

    def exists(self, name: str) -> bool:
        return self.stamp(name) is not None

    def write(self, name: str, text: str) -> None:
        self.client.put_object(Bucket=self.bucket, Key=self.key(name), Body=text.encode())

    def put_new(self, name: str, text: str) -> bool:
        """Create `name` only if absent (a conditional write); False when it exists."""
        try:
            self.client.put_object(Bucket=self.bucket, Key=self.key(name), Body=text.encode(), IfNoneMatch="*")
            return True
        except self.client.exceptions.ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("PreconditionFailed", "ConditionalRequestConflict"):
                return False
            raise

    def delete(self, name: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=self.key(name))

    def stamp(self, name: str):
        """The object's ETag (None when absent); other refusals (access denied, no bucket) say so."""
        try:
            return self.client.head_object(Bucket=self.bucket, Key=self.key(name))["ETag"]
        except self.client.exceptions.ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
                return None
            raise _refused(self.uri, name, exc) from exc

    def lock(self):
        from .lock import object_lock

        return object_lock(self)

    def disk_bytes(self) -> int:
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.key(""))
        return sum(item["Size"] for page in pages for item in page.get("Contents", []))


def _refused(uri: str, name: str, exc: Exception) -> IndexError_:
    """An S3 refusal other than "no such object" (access denied, no bucket), said as such."""
    return IndexError_(
        f"index {uri}: {name} cannot be read ({exc})",
        "check the bucket's name and the AWS credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_ENDPOINT_URL)",
    )


Location = LocalDir | ObjectStore  # where an index lives (what `locate` returns)
