"""Nonces of the public pages' forms: issued with a page view, bound to its path, good for a while."""

from __future__ import annotations

from datetime import datetime

from storage.database import Connection

# Expired nonces deleted with each new one: more than one view adds, so the table stays at what is alive.
PRUNED_PER_ISSUE = 4


async def issue(conn: Connection, nonce: str, page: str, expires_at: datetime, now: datetime) -> None:
    await conn.execute("prune_form_nonces", now=now, limit=PRUNED_PER_ISSUE)
    await conn.execute("issue_form_nonce", nonce=nonce, page=page, expires_at=expires_at)


async def valid(conn: Connection, nonce: str, page: str, now: datetime) -> bool:
    return await conn.fetch_one("form_nonce_valid", nonce=nonce, page=page, now=now) is not None
