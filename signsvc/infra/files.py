"""Stored files and the signed links that serve them.

A link is `{site}/file/{token}/{filename}`; the token carries the file's uuid and the expiry time,
signed with the service's secret key, so a link needs no lookup to check and cannot be forged.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import uuid as uuids
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import quote

import storage.files as stored
from signsvc.infra import errors
from signsvc.infra.clock import Clock
from storage import Connection, Database
from storage.contents import ContentStore
from storage.records import Blob

LINK_LIFETIME = timedelta(minutes=40)
DOCUMENTS_PAGE = "documents-page:"  # signed apart from file links: one kind of link never opens the other


@dataclass(frozen=True)
class NewFile:
    """File content about to be stored: written to the content store before the transaction that
    records it, and removed again if that transaction fails. The hash is computed once, by the
    pool worker that made the content when it can."""

    data: bytes
    filename: str
    content_type: str
    sha256: str = ""

    def __post_init__(self) -> None:
        if not self.sha256:
            object.__setattr__(self, "sha256", hashlib.sha256(self.data).hexdigest())


class Files:
    def __init__(self, db: Database, contents: ContentStore, clock: Clock, secret_key: str, site: str) -> None:
        self.db, self.contents, self.clock = db, contents, clock
        self.secret_key = secret_key
        self._key = hashlib.sha256(f"file-links:{secret_key}".encode()).digest()
        self.site = site

    async def write(self, files: list[NewFile]) -> None:
        """Writes the contents; `record` must follow in a transaction, else `discard`."""
        for file in files:
            await self.contents.put(file.sha256, file.data)

    async def record(self, tx: Connection, account_id: int, file: NewFile) -> Blob:
        return await stored.insert_blob(tx, uuid=uuids.uuid4().hex, account_id=account_id, sha256=file.sha256,
                                        filename=file.filename, content_type=file.content_type,
                                        byte_size=len(file.data), now=self.clock.now())

    async def discard(self, files: list[NewFile]) -> None:
        """Removes written contents that no recorded file refers to (the transaction failed)."""
        for file in files:
            if not await stored.is_content_used(self.db, file.sha256):
                await self.contents.delete(file.sha256)

    async def delete(self, tx: Connection, blob_ids: list[int]) -> list[str]:
        """Forgets files in a transaction; answers the contents to remove once it commits."""
        orphans = [await stored.delete_blob(tx, blob_id) for blob_id in blob_ids]
        return [sha256 for sha256 in orphans if sha256]

    async def remove_contents(self, hashes: list[str]) -> None:
        for sha256 in hashes:
            await self.contents.delete(sha256)

    async def clear_contents(self) -> None:
        """Removes every file's content, once their records are gone (a reset of the service's data)."""
        await self.contents.clear()

    async def read(self, blob: Blob) -> bytes:
        data = await self.contents.get(blob.sha256)
        if data is None:
            raise errors.NotFound()
        return data

    def link(self, blob_uuid: str, filename: str) -> str:
        """A link to the stored file, valid for 40 minutes from now."""
        return self.site + self.path(blob_uuid, filename)

    def path(self, blob_uuid: str, filename: str) -> str:
        """The link's path on the site, for the service's own pages."""
        expires = int((self.clock.now() + LINK_LIFETIME).timestamp())
        payload = f"{blob_uuid}.{expires}"
        return f"/file/{payload}.{self._sign(payload)}/{quote(filename)}"

    async def copy(self, tx: Connection, blob_id: int) -> Blob:
        """Another record of the same content (a cloned template owns its own files)."""
        blob = await stored.required_blob(tx, blob_id)
        return await stored.insert_blob(tx, uuid=uuids.uuid4().hex, account_id=blob.account_id, sha256=blob.sha256,
                                        filename=blob.filename, content_type=blob.content_type,
                                        byte_size=blob.byte_size, now=self.clock.now())

    def documents_page(self, submission_slug: str) -> str:
        """A link to a submission's documents page, valid for 40 minutes from now."""
        expires = int((self.clock.now() + LINK_LIFETIME).timestamp())
        payload = f"{submission_slug}.{expires}"
        return f"{self.site}/e/{payload}.{self._sign(DOCUMENTS_PAGE + payload)}"

    def open_documents_page(self, token: str) -> str:
        """The submission slug a documents-page link names: 404 for a link not issued here, 403 once it
        expired."""
        payload, _, signature = token.rpartition(".")
        slug, _, expires = payload.partition(".")
        if not expires.isdigit() or not _same(signature, self._sign(DOCUMENTS_PAGE + payload)):
            raise errors.NotFound()
        if int(expires) <= self.clock.now().timestamp():
            raise errors.NotAuthorized()
        return slug

    async def open_link(self, token: str) -> Blob:
        """The file a link names: 404 for a link that was not issued here, 403 once it expired."""
        payload, _, signature = token.rpartition(".")
        blob_uuid, _, expires = payload.partition(".")
        if not expires.isdigit() or not _same(signature, self._sign(payload)):
            raise errors.NotFound()
        if int(expires) <= self.clock.now().timestamp():
            raise errors.NotAuthorized()
        blob = await stored.find_blob(self.db, blob_uuid)
        if blob is None:
            raise errors.NotFound()
        return blob

    def _sign(self, payload: str) -> str:
        digest = hmac.new(self._key, payload.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _same(given: str, expected: str) -> bool:
    """A signature from a link against the one expected, in constant time (a link may hold any text)."""
    return hmac.compare_digest(given.encode(), expected.encode())
