"""What the metrics read from the database when they are scraped: the queues of jobs, webhook deliveries and emails,
counted by a few aggregate queries (the same answer from any process sharing the database)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from storage.database import Connection
from storage.rows import records


@dataclass(frozen=True)
class JobCounts:
    """The jobs of one kind: due (pending, their time reached), scheduled (pending, later), running, failed."""

    kind: str
    due: int
    scheduled: int
    running: int
    failed: int
    oldest_due_at: datetime | None


@dataclass(frozen=True)
class StatusCount:
    """The rows of one status, and when the oldest of them was created."""

    status: str
    count: int
    oldest_at: datetime | None


@dataclass(frozen=True)
class Queues:
    jobs: list[JobCounts]
    webhook_deliveries: list[StatusCount]
    emails: list[StatusCount]


async def queues(conn: Connection, now: datetime) -> Queues:
    """The queues as they stand at `now` (the service clock), one statement each, outside any transaction."""
    return Queues(
        jobs=records(JobCounts, await conn.fetch_all("count_jobs_by_kind", now=now)),
        webhook_deliveries=records(StatusCount, await conn.fetch_all("count_webhook_deliveries_by_status")),
        emails=records(StatusCount, await conn.fetch_all("count_emails_by_status")),
    )
