"""Stored files: their contents in the content store, their records in the database, and the file a signed link
(`signsvc.infra.links`, `Files.links`) names.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import uuid as uuids
from collections.abc import Awaitable, Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar

import storage.files as stored
from signsvc.infra import errors
from signsvc.infra.clock import Clock
from signsvc.infra.links import Links
from signsvc.infra.urls import Urls
from storage import Connection, Database, StorageError
from storage.account_records import Blob
from storage.contents import ContentStore
from storage.shapes import Preview

if TYPE_CHECKING:
    from signsvc.infra.jobs import Kind

log = logging.getLogger(__name__)
T = TypeVar("T")
# A file link answered with a presigned URL of the object store sends the browser there for this long: enough to
# start the download, short enough that a URL passed on is of little use.
PRESIGNED_SECONDS = 300
# A document's page previews are written side by side, but no more at once than a database pool or a store keeps.
PARALLEL_WRITES = 8
# A content whose last file went is removed this long after, unless a file names it again by then: a request or a
# host may have written the same content (the same document uploaded again) and be about to record it, since
# contents are written before the transaction that records them.
REMOVAL_GRACE = timedelta(hours=1)
SWEEP_JOB = "files.sweep"
SWEEP_EVERY = timedelta(minutes=10)
SWEEP_BATCH = 100


@dataclass(frozen=True)
class NewFile:
    """File content about to be stored: written to the content store before the transaction that
    records it, and discarded if that transaction fails. The hash is computed once, by the
    pool worker that made the content when it can."""

    data: bytes
    filename: str
    content_type: str
    sha256: str = ""

    def __post_init__(self) -> None:
        if not self.sha256:
            object.__setattr__(self, "sha256", hashlib.sha256(self.data).hexdigest())


def as_preview(blob: Blob) -> Preview:
    """How a document's record names one of its page images."""
    return {"id": blob.id, "uuid": blob.uuid, "filename": blob.filename}


class Files:
    def __init__(
        self,
        db: Database,
        contents: ContentStore,
        clock: Clock,
        secret_key: str,
        urls: Urls,
        presigned_links: bool = False,
    ) -> None:
        self.db, self.contents, self.clock = db, contents, clock
        self.secret_key = secret_key
        self.urls = urls
        self.links = Links(secret_key, clock, urls)
        self.presigned_links = presigned_links
        self._missing: set[str] = set()  # contents found missing, logged once each

    async def close(self) -> None:
        await self.contents.close()

    async def write(self, files: list[NewFile]) -> None:
        """Writes the contents side by side; `record` must follow in a transaction, else `discard`. A store that
        does not answer is a 503, and what was written of the files is discarded."""
        parallel = asyncio.Semaphore(PARALLEL_WRITES)

        async def put(file: NewFile) -> None:
            async with parallel:
                await self.contents.put(file.sha256, file.data)

        outcomes = await asyncio.gather(*(put(file) for file in files), return_exceptions=True)
        failures = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
        if not failures:
            return
        written = [file for file, outcome in zip(files, outcomes, strict=True) if outcome is None]
        await self.discard(written)
        if not all(isinstance(failure, StorageError) for failure in failures):
            raise failures[0]
        log.error("the file store did not take %d of %d files: %s", len(failures), len(files), failures[0])
        raise errors.FileStoreUnavailable() from failures[0]

    async def record(self, tx: Connection, account_id: int, file: NewFile) -> Blob:
        return await stored.insert_blob(
            tx,
            uuid=uuids.uuid4().hex,
            account_id=account_id,
            sha256=file.sha256,
            filename=file.filename,
            content_type=file.content_type,
            byte_size=len(file.data),
            now=self.clock.now(),
        )

    async def discard(self, files: list[NewFile]) -> None:
        """Removes, once the grace period has passed, written contents that no file records (the transaction that
        was to record them failed). A database that does not answer now leaves them: harmless, and what the caller
        answers is its own failure's."""
        if not files:
            return
        with contextlib.suppress(StorageError):
            async with self.db.transaction() as tx:
                for file in files:
                    await self._schedule_removal(tx, file.sha256)

    async def delete(self, tx: Connection, blob_ids: list[int]) -> None:
        """Forgets files in a transaction; the contents no other file shares go once the grace period has passed."""
        for blob_id in blob_ids:
            if sha256 := await stored.delete_blob(tx, blob_id):
                await self._schedule_removal(tx, sha256)

    async def replace(self, tx: Connection, blob: Blob, file: NewFile) -> bool:
        """The stored file holds `file`'s content from now on, under the same id and uuid (its links stay valid);
        its earlier content goes once no file uses it. `write` comes first. False when the file is gone or was
        replaced meanwhile."""
        if not await stored.replace_blob_content(tx, blob.id, blob.sha256, file.sha256, len(file.data)):
            return False
        await self._schedule_removal(tx, blob.sha256)
        return True

    async def _schedule_removal(self, tx: Connection, sha256: str) -> None:
        await stored.schedule_content_removal(tx, sha256, due_at=self.clock.now() + REMOVAL_GRACE)

    def kinds(self) -> list[Kind]:
        from signsvc.infra.jobs import Kind  # the job machinery: not for a start, which opens the files first

        return [Kind(SWEEP_JOB, self._sweep, every=SWEEP_EVERY)]

    async def _sweep(self, payload: dict[str, Any]) -> None:
        """Removes the contents due for removal that no file names again. One the store does not remove now stays
        due, and goes at the next sweep."""
        while due := await stored.due_content_removals(self.db, now=self.clock.now(), limit=SWEEP_BATCH):
            for sha256 in due:
                if not await stored.is_content_used(self.db, sha256):
                    await self.contents.delete(sha256)
                await stored.forget_content_removal(self.db, sha256)

    async def clear_contents(self) -> None:
        """Removes every file's content, once their records are gone (a reset of the service's data)."""
        await self.contents.clear()

    async def read(self, blob: Blob) -> bytes:
        return self._found(blob, await self._reading(self.contents.get(blob.sha256)))

    async def read_range(self, blob: Blob, start: int, end: int) -> bytes:
        """Bytes `start` to `end` (both included) of a file, read from the store alone."""
        return self._found(blob, await self._reading(self.contents.get_range(blob.sha256, start, end)))

    async def presigned_link(self, token: str, blob: Blob, disposition: str) -> str | None:
        """Where the object store itself serves the file of a checked link, when links are to send browsers there:
        for a few minutes, never past the link's own expiry."""
        presign = getattr(self.contents, "presigned_link", None)
        if not self.presigned_links or presign is None:
            return None
        expires = self.links.expires(token)
        seconds = max(1, min(PRESIGNED_SECONDS, expires - int(self.clock.now().timestamp())))
        return str(await self._reading(presign(blob.sha256, disposition, blob.content_type, seconds)))

    @staticmethod
    async def _reading(read: Awaitable[T]) -> T:
        try:
            return await read
        except StorageError as error:
            log.error("the file store did not answer a read: %s", error)
            raise errors.FileStoreUnavailable() from error

    def _found(self, blob: Blob, data: bytes | None) -> bytes:
        """A recorded file whose content the store lacks is gone for good: 410, and an error logged once a content."""
        if data is None:
            if blob.sha256 not in self._missing:
                self._missing.add(blob.sha256)
                log.error(
                    "the content of file %s (%s, sha256 %s) is missing from the file store",
                    blob.uuid,
                    blob.filename,
                    blob.sha256,
                )
            raise errors.Gone("The file's content is missing from the file store")
        return data

    async def owned(self, conn: Connection, account_id: int, uuids: Iterable[object]) -> dict[str, Blob]:
        """The files among `uuids` that belong to the account, by uuid. Every value or default that names a file by
        its id goes through here before it is stored or linked: a file id is no secret (every link shows one), so
        naming one must never reach another account's file."""
        named = sorted({uuid for uuid in uuids if isinstance(uuid, str)})
        return {blob.uuid: blob for blob in await stored.account_blobs(conn, account_id, named)}

    async def copy(self, tx: Connection, blob_id: int) -> Blob:
        """Another record of the same content (a cloned template owns its own files)."""
        blob = await stored.required_blob(tx, blob_id)
        return await stored.insert_blob(
            tx,
            uuid=uuids.uuid4().hex,
            account_id=blob.account_id,
            sha256=blob.sha256,
            filename=blob.filename,
            content_type=blob.content_type,
            byte_size=blob.byte_size,
            now=self.clock.now(),
        )

    async def open_link(self, token: str) -> Blob:
        """The file a link names: 404 for a link that was not issued here, 403 once it expired."""
        blob = await stored.find_blob(self.db, self.links.open_file(token))
        if blob is None:
            raise errors.NotFound()
        return blob
