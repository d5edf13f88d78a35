"""Stored file records: which account owns which content, under what name and type."""

from __future__ import annotations

from datetime import datetime

from storage.account_records import Blob
from storage.database import Connection
from storage.rows import record, records, required


async def insert_blob(
    conn: Connection,
    *,
    uuid: str,
    account_id: int,
    sha256: str,
    filename: str,
    content_type: str,
    byte_size: int,
    now: datetime,
) -> Blob:
    row = await conn.fetch_one(
        "insert_blob",
        uuid=uuid,
        account_id=account_id,
        sha256=sha256,
        filename=filename,
        content_type=content_type,
        byte_size=byte_size,
        created_at=now,
    )
    return required(Blob, row)


async def get_blob(conn: Connection, blob_id: int) -> Blob | None:
    return record(Blob, await conn.fetch_one("get_blob", id=blob_id))


async def blobs_by_ids(conn: Connection, ids: list[int]) -> dict[int, Blob]:
    """The files among these ids that exist, by id."""
    if not ids:
        return {}
    return {blob.id: blob for blob in records(Blob, await conn.fetch_all("get_blobs", ids=ids))}


async def required_blob(conn: Connection, blob_id: int) -> Blob:
    """A file record that must exist (a row that refers to it holds it)."""
    return required(Blob, await conn.fetch_one("get_blob", id=blob_id))


async def find_blob(conn: Connection, uuid: str) -> Blob | None:
    return record(Blob, await conn.fetch_one("find_blob", uuid=uuid))


async def account_blobs(conn: Connection, account_id: int, uuids: list[str]) -> list[Blob]:
    """The account's files among these uuids."""
    if not uuids:
        return []
    return records(Blob, await conn.fetch_all("find_account_blobs", account_id=account_id, uuids=uuids))


async def delete_blob(conn: Connection, blob_id: int) -> str | None:
    """Forgets the file; answers its content hash when no other file shares that content."""
    row = await conn.fetch_one("delete_blob", id=blob_id)
    if row is None:
        return None
    return None if await is_content_used(conn, row["sha256"]) else row["sha256"]


async def schedule_content_removal(conn: Connection, sha256: str, *, due_at: datetime) -> None:
    await conn.execute("schedule_content_removal", sha256=sha256, due_at=due_at)


async def due_content_removals(conn: Connection, *, now: datetime, limit: int) -> list[str]:
    return [row["sha256"] for row in await conn.fetch_all("due_content_removals", now=now, limit=limit)]


async def forget_content_removal(conn: Connection, sha256: str) -> None:
    await conn.execute("forget_content_removal", sha256=sha256)


async def is_content_used(conn: Connection, sha256: str) -> bool:
    """Whether any stored file has this content."""
    row = await conn.fetch_one("count_blobs_with_content", sha256=sha256)
    return bool(row and row["count"])


async def stored_contents(conn: Connection, *, after: str, limit: int) -> list[str]:
    """The hashes of stored files' contents after `after`, in order, once each: a page of what a store holds."""
    return [row["sha256"] for row in await conn.fetch_all("stored_contents", after=after, limit=limit)]


async def replace_blob_content(conn: Connection, blob_id: int, old_sha256: str, sha256: str, byte_size: int) -> bool:
    """The file holds new content from now on (same id and uuid); False when it is gone or changed meanwhile."""
    row = await conn.fetch_one(
        "replace_blob_content", id=blob_id, old_sha256=old_sha256, sha256=sha256, byte_size=byte_size
    )
    return row is not None
