"""How each signature file a signer gave was made, with its signing reason; and the one-time links that let a
signer draw a field on a phone (kept as the link's digest only)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

from storage.database import Connection
from storage.rows import record, records

KEPT_AFTER_EXPIRY = timedelta(days=1)


@dataclasses.dataclass(frozen=True, slots=True)
class SignatureOrigin:
    blob_uuid: str
    made_as: str | None  # "drawn", "typed" or "upload"; None when not told (an image given through the API)
    reason: str | None


@dataclasses.dataclass(frozen=True, slots=True)
class PhoneHandoff:
    id: int
    submitter_id: int
    field_uuid: str
    created_at: datetime
    expires_at: datetime
    used_at: datetime | None
    value: str | None


async def put_origin(conn: Connection, blob_uuid: str, made_as: str | None, reason: str | None) -> None:
    """Records how a file was made and its reason; None keeps what is stored."""
    await conn.execute("put_signature_origin", blob_uuid=blob_uuid, made_as=made_as, reason=reason)


async def origins(conn: Connection, uuids: list[str]) -> dict[str, SignatureOrigin]:
    if not uuids:
        return {}
    found = records(SignatureOrigin, await conn.fetch_all("signature_origins_of", uuids=sorted(set(uuids))))
    return {origin.blob_uuid: origin for origin in found}


async def insert_handoff(
    conn: Connection, submitter_id: int, field_uuid: str, digest: str, now: datetime, expires_at: datetime
) -> PhoneHandoff:
    # Kept a day past their end, so that a desktop still asking is told `expired`, not "not found".
    await conn.execute("delete_old_phone_handoffs", before=now - KEPT_AFTER_EXPIRY)
    row = await conn.fetch_one(
        "insert_phone_handoff",
        submitter_id=submitter_id,
        field_uuid=field_uuid,
        digest=digest,
        now=now,
        expires_at=expires_at,
    )
    found = record(PhoneHandoff, row)
    assert found is not None
    return found


async def handoff_by_digest(conn: Connection, digest: str) -> PhoneHandoff | None:
    return record(PhoneHandoff, await conn.fetch_one("phone_handoff_by_digest", digest=digest))


async def handoff(conn: Connection, handoff_id: int, submitter_id: int) -> PhoneHandoff | None:
    return record(PhoneHandoff, await conn.fetch_one("phone_handoff", id=handoff_id, submitter_id=submitter_id))


async def use_handoff(conn: Connection, digest: str, now: datetime) -> PhoneHandoff | None:
    """The hand-off, taken for good, when it was unused and not expired: of two requests at once, one gets it."""
    return record(PhoneHandoff, await conn.fetch_one("use_phone_handoff", digest=digest, now=now))


async def set_handoff_value(conn: Connection, handoff_id: int, value: str) -> None:
    await conn.execute("set_phone_handoff_value", id=handoff_id, value=value)
