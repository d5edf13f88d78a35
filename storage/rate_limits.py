"""Stored rate-limit windows: request counts per bucket (an API key, a client address) and window."""

from __future__ import annotations

from storage.database import Connection


async def hit(conn: Connection, buckets: list[str], window_start: int) -> dict[str, int]:
    """Counts one request in each bucket (one or two) and answers each bucket's count in this window."""
    if len(buckets) == 1:
        rows = await conn.fetch_all("hit_rate_limit", bucket=buckets[0], window_start=window_start)
    else:
        bucket, other_bucket = buckets
        rows = await conn.fetch_all("hit_rate_limits", bucket=bucket, other_bucket=other_bucket,
                                    window_start=window_start)
    return {row["bucket"]: row["hits"] for row in rows}


async def prune(conn: Connection, before: int) -> None:
    await conn.execute("prune_rate_limits", before=before)
