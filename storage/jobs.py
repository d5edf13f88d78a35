"""Stored jobs: the durable queue behind webhook deliveries, timers, emails and documents."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from storage.database import Connection
from storage.outbound_records import Job, JobStatus
from storage.rows import json_time, record, records, to_datetime


async def insert_job(
    conn: Connection,
    *,
    kind: str,
    payload: dict[str, Any],
    run_at: datetime,
    now: datetime,
    dedupe_key: str | None = None,
    channel: str,
) -> Job | None:
    """The new job, announced on `channel` at the commit; or None, nothing announced, when a job with the same
    dedupe_key already exists."""
    rows = await conn.fetch_notifying(
        "insert_job", channel, kind=kind, payload=payload, run_at=run_at, dedupe_key=dedupe_key, created_at=now
    )
    return record(Job, rows[0] if rows else None)


async def get_job(conn: Connection, job_id: int) -> Job | None:
    return record(Job, await conn.fetch_one("get_job", id=job_id))


async def claim_job(conn: Connection, *, worker: str, now: datetime, lease_until: datetime) -> Job | None:
    return record(Job, await conn.fetch_one("claim_job", worker=worker, now=now, lease_until=lease_until))


async def claim_jobs(
    conn: Connection, *, kind: str, limit: int, worker: str, now: datetime, lease_until: datetime
) -> list[Job]:
    """Up to `limit` due jobs of one kind, oldest first, now this worker's."""
    rows = await conn.fetch_all(
        "claim_jobs_of_kind", kind=kind, limit=limit, worker=worker, now=now, lease_until=lease_until
    )
    return sorted(records(Job, rows), key=lambda job: (job.run_at, job.id))


async def renew_leases(conn: Connection, job_ids: list[int], *, worker: str, lease_until: datetime) -> set[int]:
    """Extends the leases of jobs this worker runs; answers the ids that are still its own."""
    rows = await conn.fetch_all("renew_job_leases", ids=job_ids, worker=worker, lease_until=lease_until)
    return {row["id"] for row in rows}


async def delete_jobs(conn: Connection, job_ids: list[int], worker: str) -> None:
    if job_ids:
        await conn.execute("delete_jobs", ids=job_ids, worker=worker)


async def delete_job(conn: Connection, job_id: int, worker: str) -> None:
    await conn.execute("delete_job", id=job_id, worker=worker)


@dataclass(frozen=True)
class Release:
    """A job handed back to the queue (or failed) after a run."""

    job_id: int
    status: JobStatus
    run_at: datetime
    attempts: int
    last_error: str | None


async def release_jobs(conn: Connection, releases: list[Release], *, worker: str) -> None:
    """Hands jobs this worker ran back to the queue or fails them, in one statement."""
    if releases:
        rows = [
            {
                "id": r.job_id,
                "status": r.status.value,
                "run_at": json_time(r.run_at),
                "attempts": r.attempts,
                "last_error": r.last_error,
            }
            for r in releases
        ]
        await conn.execute("release_jobs", jobs=rows, worker=worker)


async def bring_job_forward(conn: Connection, *, dedupe_key: str, run_at: datetime) -> None:
    await conn.execute("bring_job_forward", dedupe_key=dedupe_key, run_at=run_at)


async def release_running_jobs(conn: Connection) -> None:
    await conn.execute("release_running_jobs")


async def next_job_at(conn: Connection) -> datetime | None:
    row = await conn.fetch_one("next_job_at")
    return to_datetime(row["next_at"]) if row else None


async def next_job_of_kind_at(conn: Connection, kind: str) -> datetime | None:
    row = await conn.fetch_one("next_job_of_kind_at", kind=kind)
    return to_datetime(row["next_at"]) if row else None
