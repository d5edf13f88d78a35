"""Posts of public forms, once each: the token a form was rendered with claims its post, so a second
post of the same form (a double click, a reload) finds what the first one made instead of making it again."""

from __future__ import annotations

from datetime import datetime

from storage.database import Connection


class Taken(Exception):
    """The token's form was posted before: the transaction that tried to claim it is to roll back."""


async def claim(conn: Connection, token: str, record_type: str, now: datetime) -> None:
    """Claims the token for this post, or raises Taken; a concurrent first post holds it until it ends."""
    if await conn.fetch_one("claim_form_post", token=token, record_type=record_type, now=now) is None:
        raise Taken()


async def made_by(conn: Connection, token: str, record_type: str) -> int | None:
    """The id of what the token's earlier post made."""
    row = await conn.fetch_one("get_form_post", token=token)
    return int(row["record_id"]) if row and row["record_type"] == record_type and row["record_id"] else None


async def settle(conn: Connection, token: str, record_id: int) -> None:
    await conn.execute("settle_form_post", token=token, record_id=record_id)


async def release(conn: Connection, token: str) -> None:
    """Gives the token back when its post made nothing."""
    await conn.execute("release_form_post", token=token)
