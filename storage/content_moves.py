"""Copies every stored file's content from one content store to another, resumably and verified by SHA-256.

A content the target already holds is skipped (stores write whole contents or nothing, so one that exists is
complete); every copied content is read back from the target and hashed before it counts as moved. The source
is left as it was: removing it is the operator's call once the service runs on the target.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

import storage.files as stored
from storage.contents import ContentStore
from storage.database import Database

PAGE = 500
PARALLEL = 8


@dataclass
class Moved:
    copied: int = 0
    present: int = 0
    missing: list[str] = field(default_factory=list)  # in the source, though a file names them
    damaged: list[str] = field(default_factory=list)  # whose bytes do not hash to their name, in source or target

    @property
    def complete(self) -> bool:
        return not self.missing and not self.damaged


async def move(
    db: Database, source: ContentStore, target: ContentStore, progress: Callable[[Moved], None] = lambda moved: None
) -> Moved:
    """Every content a file of the database names."""
    moved, after = Moved(), ""
    while hashes := await stored.stored_contents(db, after=after, limit=PAGE):
        await move_contents(hashes, source, target, moved)
        after = hashes[-1]
        progress(moved)
    return moved


async def move_contents(hashes: list[str], source: ContentStore, target: ContentStore, moved: Moved) -> None:
    """The contents named, counted in `moved`, a few side by side."""
    parallel = asyncio.Semaphore(PARALLEL)
    async with asyncio.TaskGroup() as copies:  # one that fails stops the others before the stores close
        for sha256 in hashes:
            copies.create_task(_move_one(sha256, source, target, moved, parallel))


async def _move_one(
    sha256: str, source: ContentStore, target: ContentStore, moved: Moved, parallel: asyncio.Semaphore
) -> None:
    async with parallel:
        if await target.exists(sha256):
            moved.present += 1
            return
        data = await source.get(sha256)
        if data is None:
            moved.missing.append(sha256)
            return
        if hashlib.sha256(data).hexdigest() != sha256:
            moved.damaged.append(sha256)
            return
        await target.put(sha256, data)
        copy = await target.get(sha256)
        if copy is None or hashlib.sha256(copy).hexdigest() != sha256:
            await target.delete(sha256)
            moved.damaged.append(sha256)
            return
        moved.copied += 1
