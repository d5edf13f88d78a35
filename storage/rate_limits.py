"""Stored rate-limit windows: request counts per bucket (an API key, a client address) and window."""

from __future__ import annotations

from storage.database import Connection

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
        rows = await conn.fetch_all("hit_rate_limits", bucket=bucket, hits=count, other_bucket=other_bucket,
                                    other_hits=other_count, window_start=window_start)
    return {row["bucket"]: row["hits"] for row in rows}


async def prune(conn: Connection, before: int) -> None:
    await conn.execute("prune_rate_limits", before=before)
