"""Forgetting what the accounts made, for test suites that reset the service between tests."""

from __future__ import annotations

from storage import rate_limits
from storage.database import Database


async def reset(db: Database) -> None:
    """Templates, submissions, clickwraps, webhook endpoints (but those configured at start), events,
    emails, file records, jobs (but the periodic ones) and rate-limit windows go; accounts, users, keys,
    settings and signing certificates stay. File contents are the content store's to clear."""
    async with db.transaction() as tx:
        await tx.run_script(tx.queries["reset_service_data"])
        await tx.notify(rate_limits.EMPTIED)
