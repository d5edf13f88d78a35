"""Stored rate-limit windows: request counts per bucket (an API key, a client address) and window; and the failed
console sign-ins per email and client address."""

from __future__ import annotations

from datetime import datetime

from storage.database import Connection
from storage.rows import to_datetime

# Notified when every window's counts were emptied (a test suite's reset): what processes hold goes too.
EMPTIED = "rate_limits_emptied"


async def hit(conn: Connection, hits: dict[str, int], window_start: int) -> dict[str, int]:
    """Counts requests in each bucket (one or two: bucket -> how many) and answers each bucket's count in this
    window."""
    if len(hits) == 1:
        [(bucket, count)] = hits.items()
        rows = await conn.fetch_all("hit_rate_limit", bucket=bucket, hits=count, window_start=window_start)
    else:
        (bucket, count), (other_bucket, other_count) = hits.items()
        rows = await conn.fetch_all(
            "hit_rate_limits",
            bucket=bucket,
            hits=count,
            other_bucket=other_bucket,
            other_hits=other_count,
            window_start=window_start,
        )
    return {row["bucket"]: row["hits"] for row in rows}


async def prune(conn: Connection, before: int) -> None:
    await conn.execute("prune_rate_limits", before=before)


async def sign_in_failures(conn: Connection, email: str, address: str) -> tuple[int, datetime | None]:
    """How many sign-ins of the email from the address failed, and when the last one did (0, None: none)."""
    row = await conn.fetch_one("sign_in_failures", email=email, address=address)
    return (0, None) if row is None else (row["failures"], to_datetime(row["failed_at"]))


async def sign_in_failed(conn: Connection, email: str, address: str, now: datetime, forget_before: datetime) -> None:
    await conn.execute("sign_in_failed", email=email, address=address, now=now, forget_before=forget_before)


async def forget_sign_in_failures(conn: Connection, email: str, address: str) -> None:
    await conn.execute("forget_sign_in_failures", email=email, address=address)


async def prune_sign_in_failures(conn: Connection, before: datetime) -> None:
    await conn.execute("prune_sign_in_failures", before=before)
