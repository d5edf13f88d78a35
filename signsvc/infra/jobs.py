"""Durable jobs: enqueued in the caller's transaction, claimed when due, retried with backoff.

One `Worker` per process claims due jobs (on Postgres several processes share the queue: a claim
takes a lease, and a job whose lease ran out is taken again). Enqueueing notifies a channel, which
wakes every worker right after the commit; a timer wakes it for jobs that fall due later.
`Worker.drain()` runs everything due once, for tests that move the clock.

A job of a kind claimed one by one (`enqueue(..., one_by_one=True)`: a completion's documents, an email) notifies a
channel of its own: a worker it wakes looks only for such jobs, and one already running as many as it may
(`concurrency`) makes no statement at all; it looks again when one of them finishes. Any other wake (the jobs
channel, a job run in a batch finishing, the timer, the clock moved) looks for every kind. While a worker runs as
many jobs claimed one by one as it may, its timer is set for the jobs it could still claim (of kinds claimed in
batches), not for due ones that wait for a free place. Under load a completion thus costs the worker no statement.

While a handler runs, its worker renews the lease every third of it (a heartbeat on the service clock),
so a job that takes longer than the lease is not taken over; only a job whose worker stopped renewing
(its process died) is.

A handler that keeps its own schedule (webhook deliveries) answers the time it wants to run
again; the job then stays in the queue until that time instead of leaving it.

A kind with a batch handler (webhook deliveries) is claimed `batch_size` jobs at a time, with up to `batches`
batches under way, besides the `concurrency` jobs claimed one by one (oldest first, whatever their kind; a
claim that meets a batch kind's job stops there, and that job runs in one more batch of its kind): a backlog
costs a few statements per batch rather than about nine per job. What ran is recorded per batch too (one statement
releases the jobs that run again or failed, one deletes those that finished). A job finished but not yet
deleted when the process dies runs again, like any job whose process died mid-run: handlers are idempotent.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import storage.jobs as stored
from signsvc.infra import retries
from signsvc.infra.clock import Clock
from signsvc.infra.retries import Backoff
from storage import Connection, Database, StorageError
from storage.outbound_records import Job, JobStatus

log = logging.getLogger(__name__)
CHANNEL = "signsvc_jobs"  # a job of any kind added or made due: a worker looks for every kind
ONE_BY_ONE_CHANNEL = "signsvc_jobs_singly"  # a job of a kind claimed one by one added
# A handler gets the job's payload; it may answer when to run again (else the job is done).
Handler = Callable[[dict[str, Any]], Awaitable[datetime | None]]
# A batch handler gets the payloads of several jobs of its kind and answers for each, in order, what a handler
# would: when to run again, None, or the exception that failed that run.
BatchHandler = Callable[[list[dict[str, Any]]], Awaitable[list[datetime | Exception | None]]]
Answer = datetime | Exception | None


class GiveUp(Exception):
    """Raised by a handler for a failure that no retry can mend: the job is failed at once."""


@dataclass(frozen=True)
class Kind:
    """A kind of job: its handler, its retry policy, and for periodic work the interval.

    A kind with a `batch` handler is claimed by the running worker in batches of its own (one statement
    claims, one heartbeat renews, one statement deletes what finished); `handler` still runs a job on its own
    (`Worker.drain`, a job whose lease ran out).
    """

    name: str
    handler: Handler
    backoff: Backoff = retries.JOBS
    every: timedelta | None = None
    batch: BatchHandler | None = None


async def enqueue(
    tx: Connection,
    clock: Clock,
    kind: str,
    payload: dict[str, Any],
    *,
    run_at: datetime | None = None,
    dedupe_key: str | None = None,
    one_by_one: bool = False,
) -> Job | None:
    """Adds a job in the caller's transaction; workers wake when it commits. `one_by_one`: its kind has no batch
    handler, so the workers it wakes need look only for jobs claimed one by one."""
    now = clock.now()
    channel = ONE_BY_ONE_CHANNEL if one_by_one else CHANNEL
    job = await stored.insert_job(
        tx, kind=kind, payload=payload, run_at=run_at or now, now=now, dedupe_key=dedupe_key, channel=channel
    )
    if job is None:  # one with its dedupe_key is there: workers are woken all the same (`bring_forward` needs it)
        await tx.notify(channel)
    return job


async def bring_forward(tx: Connection, clock: Clock, kind: str, payload: dict[str, Any], *, dedupe_key: str) -> None:
    """Makes the job with this dedupe_key due now: adds it, or brings a waiting or failed one forward.

    A job that is running is left to finish: what it does is what was asked for.
    """
    if await enqueue(tx, clock, kind, payload, dedupe_key=dedupe_key) is None:
        await stored.bring_job_forward(tx, dedupe_key=dedupe_key, run_at=clock.now())


async def schedule_periodic(db: Database, clock: Clock, kinds: list[Kind]) -> None:
    """Makes sure each periodic kind has its one job in the queue, first due one period after the first start:
    a new service (a test suite's, say) has nothing to prune yet."""
    async with db.transaction() as tx:
        for kind in kinds:
            if kind.every:
                await enqueue(
                    tx, clock, kind.name, {}, run_at=clock.now() + kind.every, dedupe_key=f"periodic:{kind.name}"
                )


class Worker:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        kinds: list[Kind],
        *,
        concurrency: int = 8,
        lease: timedelta = timedelta(minutes=5),
        poll_seconds: float = 5.0,
        batch_size: int = 100,
        batches: int = 3,
    ) -> None:
        self.db, self.clock = db, clock
        self.kinds = {kind.name: kind for kind in kinds}
        self.concurrency, self.lease, self.poll_seconds = concurrency, lease, poll_seconds
        self.batch_size, self.batches = batch_size, batches
        self.name = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._wake = asyncio.Event()
        self._every_kind = True  # the next look is for every kind (else only for jobs claimed one by one)
        self._next_look = 0.0  # when the timer wakes the loop (the event loop's time)
        self._time_moved: set[asyncio.Event] = set()
        clock.subscribe(self._tell_time_moved)
        self._stopping = False
        self._running: set[asyncio.Task[None]] = set()
        self._batching: dict[str, set[asyncio.Task[None]]] = {kind.name: set() for kind in kinds if kind.batch}
        self._loop_task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if self.db.single_process:
            await stored.release_running_jobs(self.db)
        await self.db.listen(CHANNEL, self.wake)
        await self.db.listen(ONE_BY_ONE_CHANNEL, self._wake_for_one_by_one)
        self.clock.subscribe(self.wake)
        self._loop_task = asyncio.create_task(self._loop(), name="signsvc-jobs")

    def wake(self) -> None:
        """The next look is for jobs of every kind."""
        self._every_kind = True
        self._wake.set()

    def _wake_for_one_by_one(self) -> None:
        self._wake.set()

    def _tell_time_moved(self) -> None:
        for moved in self._time_moved:
            moved.set()

    async def stop(self) -> None:
        """Stops claiming and waits for the jobs under way to finish."""
        self._stopping = True
        self.wake()
        if self._loop_task:
            await self._loop_task
        if under_way := self._under_way():
            await asyncio.gather(*under_way, return_exceptions=True)

    async def drain(self) -> int:
        """Runs every job due now, one at a time, until none is left; answers how many ran."""
        count = 0
        while job := await self._claim():
            await self._execute(job)
            count += 1
        return count

    async def settle(self) -> int:
        """Runs every job due now, and waits for the ones the loop is running, until none is left; answers
        how many ran here. Jobs that fall due later stay where they are."""
        count = 0
        while True:
            count += await self.drain()
            if not (under_way := self._under_way()):
                return count
            await asyncio.wait(under_way)

    def _under_way(self) -> set[asyncio.Task[None]]:
        return self._running.union(*self._batching.values())

    async def _loop(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._stopping:
            self._wake.clear()
            every_kind, self._every_kind = self._every_kind, False
            try:
                await self._look(every_kind)
            except StorageError as exc:
                log.warning("job queue unavailable: %s", exc)
                self._next_look = loop.time() + self.poll_seconds
            except Exception:
                log.exception("job worker loop failed; trying again")
                self._next_look = loop.time() + self.poll_seconds
            if not await _wait(self._wake, max(self._next_look - loop.time(), 0)):
                self._every_kind = True  # the timer: jobs of any kind may have fallen due

    async def _look(self, every_kind: bool) -> None:
        """Claims what is due and may run now, and sets the timer. A look for jobs claimed one by one only, when
        the worker runs as many as it may, makes no statement: the timer stays (what it may claim next is claimed
        once one finishes, which looks again)."""
        if every_kind:
            await self._start_batches()
        await self._start_singles()
        if every_kind or len(self._running) < self.concurrency:
            self._next_look = asyncio.get_running_loop().time() + await self._seconds_to_next_job()

    async def _start_batches(self) -> None:
        for name, under_way in self._batching.items():
            while len(under_way) < self.batches and not self._stopping:
                claimed = await self._claim_batch(name, self.batch_size)
                if claimed:
                    self._track(under_way, self._execute_logged(claimed))
                if len(claimed) < self.batch_size:
                    break  # none of the kind is left due: a new one wakes the loop

    async def _claim_batch(self, kind: str, limit: int) -> list[Job]:
        now = self.clock.now()
        return await stored.claim_jobs(
            self.db, kind=kind, limit=limit, worker=self.name, now=now, lease_until=now + self.lease
        )

    async def _start_singles(self) -> None:
        while len(self._running) < self.concurrency and not self._stopping and (job := await self._claim()):
            if job.kind in self._batching:
                # The oldest due job is of a kind claimed in batches (or its lease ran out): it runs in a batch with
                # more of its kind, a few statements for a hundred jobs where a job run alone costs as many.
                claimed = [job, *await self._claim_batch(job.kind, self.batch_size - 1)]
                self._track(self._batching[job.kind], self._execute_logged(claimed))
                return
            self._track(self._running, self._execute_logged([job]))

    def _track(self, tasks: set[asyncio.Task[None]], work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        tasks.add(task)
        task.add_done_callback(functools.partial(self._finished, tasks))

    def _finished(self, tasks: set[asyncio.Task[None]], task: asyncio.Task[None]) -> None:
        """A job run alone frees a place for another (and the timer is set again, the queue perhaps empty); a
        batch may have put jobs back for later, of a kind claimed in batches."""
        tasks.discard(task)
        if tasks is self._running:
            self._wake_for_one_by_one()
        else:
            self.wake()

    async def _seconds_to_next_job(self) -> float:
        """Until the next job this worker may claim falls due: any job, or while it runs as many jobs claimed one
        by one as it may, a job of a kind claimed in batches (the others wait for one of its jobs to finish, which
        looks again; else due ones it cannot take would have it look every few milliseconds)."""
        if len(self._running) < self.concurrency:
            due = [await stored.next_job_at(self.db)]
        else:
            free = [kind for kind, under_way in self._batching.items() if len(under_way) < self.batches]
            due = [await stored.next_job_of_kind_at(self.db, kind) for kind in free]
        next_at = min((at for at in due if at is not None), default=None)
        if next_at is None:
            return self.poll_seconds
        return min(self.poll_seconds, max((next_at - self.clock.now()).total_seconds(), 0.01))

    async def _claim(self) -> Job | None:
        # One statement, atomic on its own: no transaction around it (two round trips fewer per job).
        now = self.clock.now()
        return await stored.claim_job(self.db, worker=self.name, now=now, lease_until=now + self.lease)

    async def _execute_logged(self, claimed: list[Job]) -> None:
        try:
            await self._execute(*claimed)
        except StorageError as exc:
            # The lease runs out and the jobs are claimed again: nothing is lost.
            log.warning(
                "jobs %s (%s) could not be recorded as run: %s", [job.id for job in claimed], claimed[0].kind, exc
            )

    async def _execute(self, *claimed: Job) -> None:
        """Runs jobs of one kind (one job, or a batch for a batch handler) and records each outcome: what ran
        again or failed in one statement, what finished in another."""
        kind = self.kinds.get(claimed[0].kind)
        answers = await self._run_leased(list(claimed), kind)
        releases = {job.id: self._release(job, kind, answer) for job, answer in zip(claimed, answers, strict=True)}
        await stored.release_jobs(self.db, [r for r in releases.values() if r], worker=self.name)
        await stored.delete_jobs(self.db, [job_id for job_id, r in releases.items() if r is None], self.name)

    async def _run_leased(self, claimed: list[Job], kind: Kind | None) -> list[Answer]:
        """The answer for each job, with their leases renewed for as long as the handler runs."""
        heartbeat = asyncio.create_task(self._heartbeat(claimed), name=f"signsvc-job-{claimed[0].id}-heartbeat")
        try:
            if kind is None:
                raise LookupError(f"no handler for job kind {claimed[0].kind!r}")
            if len(claimed) > 1 and kind.batch:
                answers = await kind.batch([job.payload for job in claimed])
                if len(answers) != len(claimed):
                    raise RuntimeError(f"the {kind.name} batch handler answered {len(answers)} of {len(claimed)}")
                return answers
            return [await kind.handler(claimed[0].payload)]
        except Exception as exc:
            return [exc] * len(claimed)
        finally:
            heartbeat.cancel()
            await asyncio.wait([heartbeat])

    def _release(self, job: Job, kind: Kind | None, answer: Answer) -> stored.Release | None:
        """How the job goes back to the queue after its run, or fails; None when it is done and leaves it."""
        if isinstance(answer, Exception):
            log.warning("job %s (%s) run %d failed: %r", job.id, job.kind, job.attempts, answer)
            return self._retry_or_fail(job, kind, f"{type(answer).__name__}: {answer}", isinstance(answer, GiveUp))
        if answer is not None:
            return stored.Release(job.id, JobStatus.PENDING, answer, 0, None)
        if kind is not None and kind.every:
            return stored.Release(job.id, JobStatus.PENDING, self.clock.now() + kind.every, 0, None)
        return None

    async def _heartbeat(self, claimed: list[Job]) -> None:
        """Extends the leases every third of one, so two renewals may fail before another worker takes a job."""
        held = {job.id for job in claimed}
        renew_at = self.clock.now() + self.lease / 3
        while held:
            await self._until(renew_at)
            now = self.clock.now()
            renew_at = now + self.lease / 3
            try:
                # Shielded: the handler may end while a renewal is under way, which then lands harmlessly.
                renewal = stored.renew_leases(self.db, sorted(held), worker=self.name, lease_until=now + self.lease)
                still = await asyncio.shield(renewal)
            except StorageError as exc:
                log.warning("jobs %s (%s) leases not renewed: %s", sorted(held), claimed[0].kind, exc)
                continue
            if lost := held - still:
                log.warning("jobs %s (%s) lost their lease to another worker", sorted(lost), claimed[0].kind)
                held = still

    async def _until(self, moment: datetime) -> None:
        """Returns once the clock reads `moment`: a clock that runs gets there by itself, a test clock when moved."""
        moved = asyncio.Event()
        self._time_moved.add(moved)
        try:
            while (seconds := (moment - self.clock.now()).total_seconds()) > 0:
                moved.clear()
                await _wait(moved, seconds)
        finally:
            self._time_moved.discard(moved)

    def _retry_or_fail(self, job: Job, kind: Kind | None, error: str, give_up: bool) -> stored.Release:
        backoff = kind.backoff if kind else retries.ONCE
        if (give_up or job.attempts >= backoff.attempts) and not (kind and kind.every):
            return stored.Release(job.id, JobStatus.FAILED, job.run_at, job.attempts, error)
        return stored.Release(
            job.id, JobStatus.PENDING, self.clock.now() + backoff.delay(job.attempts), job.attempts, error
        )


async def _wait(event: asyncio.Event, seconds: float) -> bool:
    """Until `event` is set (True) or `seconds` have passed (False). (Not `asyncio.wait_for`: on Python 3.11 it
    drops a cancellation that comes just after the event was set, and a task cancelled then would wait on.)"""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await event.wait()
            return True
    return False
