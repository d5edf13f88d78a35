"""Stored rate-limit windows: request counts per bucket (an API key, a client address) and window."""

from __future__ import annotations

from storage.database import Connection


async def hit(conn: Connection, bucket: str, window_start: int) -> int:
    """Counts one request and answers how many the bucket has had in this window."""
    row = await conn.fetch_one("hit_rate_limit", bucket=bucket, window_start=window_start)
    return row["hits"]


async def prune(conn: Connection, before: int) -> None:
    await conn.execute("prune_rate_limits", before=before)
