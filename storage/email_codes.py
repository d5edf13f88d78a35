"""The verification code last sent to each submitter (`require_email_2fa`), kept as a digest."""

from __future__ import annotations

import dataclasses
from datetime import datetime

from storage.database import Connection
from storage.rows import record


@dataclasses.dataclass(frozen=True, slots=True)
class EmailCode:
    submitter_id: int
    digest: str
    expires_at: datetime


async def put(conn: Connection, submitter_id: int, digest: str, expires_at: datetime) -> None:
    await conn.execute("put_email_code", submitter_id=submitter_id, digest=digest, expires_at=expires_at)


async def last_sent(conn: Connection, submitter_id: int) -> EmailCode | None:
    return record(EmailCode, await conn.fetch_one("email_code", submitter_id=submitter_id))


async def forget(conn: Connection, submitter_id: int) -> bool:
    """Whether there was a code to forget (another request may have used it first)."""
    return await conn.fetch_one("forget_email_code", submitter_id=submitter_id) is not None
