"""The verification code last sent to each submitter (`require_email_2fa`), kept as a digest with the wrong tries
made on it."""

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
    wrong_tries: int


async def put(conn: Connection, submitter_id: int, digest: str, expires_at: datetime) -> None:
    await conn.execute("put_email_code", submitter_id=submitter_id, digest=digest, expires_at=expires_at)


async def last_sent(conn: Connection, submitter_id: int) -> EmailCode | None:
    return record(EmailCode, await conn.fetch_one("email_code", submitter_id=submitter_id))


async def use(conn: Connection, submitter_id: int, digest: str, now: datetime) -> bool:
    """Whether the submitter's code is `digest` and still works, deleting it: of two requests typing it at
    once, one only is answered True."""
    return await conn.fetch_one("use_email_code", submitter_id=submitter_id, digest=digest, now=now) is not None


async def miss(conn: Connection, submitter_id: int) -> EmailCode | None:
    """Counts a wrong try on the submitter's code; the code with its tries so far, None when there is none."""
    return record(EmailCode, await conn.fetch_one("miss_email_code", submitter_id=submitter_id))


async def drop(conn: Connection, code: EmailCode) -> None:
    """Deletes the code, unless a new one replaced it since it was read."""
    await conn.execute("drop_email_code", submitter_id=code.submitter_id, digest=code.digest)


async def sent_since(conn: Connection, submission_id: int, submitter_id: int, since: datetime) -> int:
    row = await conn.fetch_one(
        "email_codes_sent_since", submission_id=submission_id, submitter_id=submitter_id, since=since
    )
    return int(row["sent"]) if row else 0
