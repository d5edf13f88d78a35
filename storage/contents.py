"""Where file bytes live, addressed by their SHA-256: a local directory, or the database itself.

The directory suits one host; the database store lets several hosts share one Postgres.
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

    async def delete(self, sha256: str) -> None: ...

    async def clear(self) -> None: ...


class DirectoryStore:
    """Files under `root/ab/cd/<sha256>`, written atomically (temporary file, then rename)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

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

    async def delete(self, sha256: str) -> None:
        await asyncio.to_thread(self._path(sha256).unlink, missing_ok=True)

    async def clear(self) -> None:
        await asyncio.to_thread(shutil.rmtree, self.root, ignore_errors=True)

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

    async def delete(self, sha256: str) -> None:
        await self.db.execute("delete_content", sha256=sha256)

    async def clear(self) -> None:
        await self.db.execute("clear_contents")
