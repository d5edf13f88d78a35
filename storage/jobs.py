"""Stored jobs: the durable queue behind webhook deliveries, timers, emails and documents."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from storage.database import Connection
from storage.records import Job, JobStatus
from storage.rows import record, to_datetime


async def insert_job(conn: Connection, *, kind: str, payload: dict[str, Any], run_at: datetime, now: datetime,
                     dedupe_key: str | None = None) -> Job | None:
    """The new job, or None when a job with the same dedupe_key already exists."""
    row = await conn.fetch_one("insert_job", kind=kind, payload=payload, run_at=run_at, dedupe_key=dedupe_key,
                               created_at=now)
    return record(Job, row)


async def get_job(conn: Connection, job_id: int) -> Job | None:
    return record(Job, await conn.fetch_one("get_job", id=job_id))


async def claim_job(conn: Connection, *, worker: str, now: datetime, lease_until: datetime) -> Job | None:
    return record(Job, await conn.fetch_one("claim_job", worker=worker, now=now, lease_until=lease_until))


async def renew_lease(conn: Connection, job_id: int, *, worker: str, lease_until: datetime) -> bool:
    """Extends the lease of a job this worker runs; False once it is no longer this worker's."""
    return await conn.fetch_one("renew_job_lease", id=job_id, worker=worker, lease_until=lease_until) is not None


async def delete_job(conn: Connection, job_id: int, worker: str) -> None:
    await conn.execute("delete_job", id=job_id, worker=worker)


async def release_job(conn: Connection, job: Job, *, worker: str, status: JobStatus, run_at: datetime,
                      attempts: int, last_error: str | None) -> None:
    await conn.execute("release_job", id=job.id, worker=worker, status=status.value, run_at=run_at,
                       attempts=attempts, last_error=last_error)


async def bring_job_forward(conn: Connection, *, dedupe_key: str, run_at: datetime) -> None:
    await conn.execute("bring_job_forward", dedupe_key=dedupe_key, run_at=run_at)


async def release_running_jobs(conn: Connection) -> None:
    await conn.execute("release_running_jobs")


async def next_job_at(conn: Connection) -> datetime | None:
    row = await conn.fetch_one("next_job_at")
    return to_datetime(row["next_at"]) if row else None
