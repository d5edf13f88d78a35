"""Stored history that retention forgets: each statement deletes at most a batch of one table's rows older than a
moment, in a transaction of its own, and answers how many it deleted."""

from __future__ import annotations

from datetime import datetime

from storage.database import Connection

# What retention forgets, in the order it goes: deliveries (with their attempts) before the events they carry (an
# event with a delivery stays). Each has its `prune_<name>` query in queries/retention.sql.
HISTORY = ("webhook_deliveries", "events", "emails", "jobs", "form_posts")


async def prune(conn: Connection, history: str, *, before: datetime, limit: int) -> int:
    """Forgets up to `limit` rows of one kind of history (a name of HISTORY) older than `before`; answers how many."""
    return len(await conn.fetch_all(f"prune_{history}", before=before, limit=limit))
