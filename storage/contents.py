"""Where file bytes live, addressed by their SHA-256: a local directory, the database itself, or S3-compatible
object storage (storage/object_store.py).

The directory suits one host; the database and object stores let several hosts share one Postgres.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path
from typing import Protocol

from storage.database import Database


class ContentStore(Protocol):
    async def put(self, sha256: str, data: bytes) -> None: ...

    async def get(self, sha256: str) -> bytes | None: ...

    async def get_range(self, sha256: str, start: int, end: int) -> bytes | None:
        """Bytes `start` to `end`, both included, of a content at least `end + 1` bytes long."""

    async def exists(self, sha256: str) -> bool: ...

    async def delete(self, sha256: str) -> None: ...

    async def clear(self) -> None: ...

    async def close(self) -> None: ...


class DirectoryStore:
    """Files under `root/ab/cd/<sha256>`, written atomically (temporary file, then rename)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    @classmethod
    def in_data_dir(cls, data_dir: str | Path) -> DirectoryStore:
        """The service's own directory store: `{SIGNSVC_DATA_DIR}/files`."""
        return cls(Path(data_dir) / "files")

    def _path(self, sha256: str) -> Path:
        return self.root / sha256[:2] / sha256[2:4] / sha256

    async def put(self, sha256: str, data: bytes) -> None:
        await asyncio.to_thread(self._write, self._path(sha256), data)

    async def get(self, sha256: str) -> bytes | None:
        path = self._path(sha256)
        try:
            return await asyncio.to_thread(path.read_bytes)
        except FileNotFoundError:
            return None

    async def get_range(self, sha256: str, start: int, end: int) -> bytes | None:
        try:
            return await asyncio.to_thread(self._read_range, self._path(sha256), start, end)
        except FileNotFoundError:
            return None

    async def exists(self, sha256: str) -> bool:
        return await asyncio.to_thread(self._path(sha256).exists)

    async def delete(self, sha256: str) -> None:
        await asyncio.to_thread(self._path(sha256).unlink, missing_ok=True)

    async def clear(self) -> None:
        await asyncio.to_thread(shutil.rmtree, self.root, ignore_errors=True)

    async def close(self) -> None:
        pass

    @staticmethod
    def _read_range(path: Path, start: int, end: int) -> bytes:
        with path.open("rb") as handle:
            handle.seek(start)
            return handle.read(end - start + 1)

    @staticmethod
    def _write(path: Path, data: bytes) -> None:
        if path.exists():
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as handle:
            handle.write(data)
        os.replace(handle.name, path)


class DatabaseStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def put(self, sha256: str, data: bytes) -> None:
        await self.db.execute("put_content", sha256=sha256, data=data)

    async def get(self, sha256: str) -> bytes | None:
        row = await self.db.fetch_one("get_content", sha256=sha256)
        return bytes(row["data"]) if row else None

    async def get_range(self, sha256: str, start: int, end: int) -> bytes | None:
        data = await self.get(sha256)
        return None if data is None else data[start : end + 1]

    async def exists(self, sha256: str) -> bool:
        return await self.db.fetch_one("has_content", sha256=sha256) is not None

    async def delete(self, sha256: str) -> None:
        await self.db.execute("delete_content", sha256=sha256)

    async def clear(self) -> None:
        await self.db.execute("clear_contents")

    async def close(self) -> None:
        pass  # the database is closed by whoever opened it


async def open_store(place: str, db: Database, data_dir: str | Path) -> ContentStore:
    """The store `place` names: `directory` (`{data_dir}/files`), `database`, or `s3://bucket/prefix`."""
    if place == "database":
        return DatabaseStore(db)
    if place == "directory":
        return DirectoryStore.in_data_dir(data_dir)
    from storage.object_store import ObjectStore  # only a deployment on object storage imports its client

    return await ObjectStore.open(place)
