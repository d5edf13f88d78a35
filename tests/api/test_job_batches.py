"""Jobs of a kind with a batch handler: the running worker claims them many at a time, answers each on its own,
renews their leases together, and never hands one job to two workers; a batch whose worker died is taken over."""

import asyncio
from datetime import timedelta

import storage.jobs as stored
from signsvc.infra import jobs
from signsvc.infra.jobs import GiveUp, Kind, Worker
from signsvc.infra.retries import Backoff
from storage.records import JobStatus
from tests.support.databases import open_db

KIND = "test.batch"
LEASE = timedelta(minutes=5)


class Runs:
    """Records every job run, by its payload's n, and how many ran in each call; `answers` decides each answer."""

    def __init__(self, expected: int = 0, answers=None) -> None:
        self.ran: list[int] = []
        self.calls: list[list[int]] = []
        self.running: set[int] = set()
        self.twice_at_once: list[int] = []
        self.expected, self.answers = expected, answers or (lambda n: None)
        self.all_ran, self.started = asyncio.Event(), asyncio.Event()
        self.release = asyncio.Event()
        self.release.set()

    async def batch(self, payloads):
        numbers = [payload["n"] for payload in payloads]
        self.calls.append(numbers)
        self.twice_at_once += [n for n in numbers if n in self.running]
        self.running.update(numbers)
        self.started.set()
        await self.release.wait()
        for _ in range(3):
            await asyncio.sleep(0)  # lets another worker claim meanwhile
        self.running.difference_update(numbers)
        self.ran += numbers
        if len(self.ran) >= self.expected:
            self.all_ran.set()
        return [self.answers(n) for n in numbers]

    async def one(self, payload):
        [answer] = await self.batch([payload])
        if isinstance(answer, Exception):
            raise answer
        return answer

    def kind(self) -> Kind:
        return Kind(KIND, self.one, backoff=Backoff(attempts=3), batch=self.batch)


async def enqueue_many(db, clock, count: int) -> list[int]:
    async with db.transaction() as tx:
        return [(await jobs.enqueue(tx, clock, KIND, {"n": n})).id for n in range(count)]


async def queue_is_empty(db) -> bool:
    return await stored.next_job_at(db) is None


async def test_a_running_worker_claims_a_batch_kind_in_batches_and_runs_every_job_once(db, clock):
    runs = Runs(expected=45)
    worker = Worker(db, clock, [runs.kind()], batch_size=10, poll_seconds=3600)
    await worker.start()
    try:
        await enqueue_many(db, clock, 45)
        await asyncio.wait_for(runs.all_ran.wait(), 10)
    finally:
        await worker.stop()
    assert sorted(runs.ran) == list(range(45)), "every job ran exactly once"
    assert max(len(call) for call in runs.calls) == 10, "claimed in batches of batch_size"
    assert await queue_is_empty(db), "every finished job left the queue"


async def test_two_workers_claiming_batches_never_hand_one_job_to_both(db, database_url, clock):
    # On SQLite both workers share the process's one connection; on Postgres each has a pool of its own.
    other = db if db.single_process else await open_db(database_url)
    runs = Runs(expected=300)
    workers = [Worker(database, clock, [runs.kind()], batch_size=7, poll_seconds=3600) for database in (db, other)]
    try:
        for worker in workers:
            await worker.start()
        await enqueue_many(db, clock, 300)
        await asyncio.wait_for(runs.all_ran.wait(), 20)
        for worker in workers:
            await worker.stop()
    finally:
        if other is not db:
            await other.close()
    assert runs.twice_at_once == [], "a job was under way in two batches at once"
    assert sorted(runs.ran) == list(range(300)), "every job ran exactly once"
    assert await queue_is_empty(db)


async def test_each_job_of_a_batch_is_answered_on_its_own(db, clock):
    later = clock.now() + timedelta(hours=2)
    answers = {0: None, 1: later, 2: RuntimeError("receiver down"), 3: GiveUp("no such address")}
    runs = Runs(expected=4, answers=answers.__getitem__)
    worker = Worker(db, clock, [runs.kind()], poll_seconds=3600)
    ids = await enqueue_many(db, clock, 4)
    await worker.start()
    try:
        await asyncio.wait_for(runs.all_ran.wait(), 10)
    finally:
        await worker.stop()
    assert runs.calls == [[0, 1, 2, 3]], "one batch"
    done, again, retry, failed = [await stored.get_job(db, job_id) for job_id in ids]
    assert done is None
    assert (again.status, again.run_at, again.attempts, again.last_error) == (JobStatus.PENDING, later, 0, None)
    assert (retry.status, retry.run_at, retry.attempts, retry.last_error) == (
        JobStatus.PENDING,
        clock.now() + timedelta(minutes=1),
        1,
        "RuntimeError: receiver down",
    )
    assert (failed.status, failed.last_error) == (JobStatus.FAILED, "GiveUp: no such address")


async def test_a_batch_whose_worker_died_runs_once_when_its_leases_ran_out(db, clock):
    ids = await enqueue_many(db, clock, 12)
    # Claimed by a worker that dies at once: nobody renews the leases, nobody deletes the jobs.
    claimed = await stored.claim_jobs(
        db, kind=KIND, limit=100, worker="a-worker-that-died", now=clock.now(), lease_until=clock.now() + LEASE
    )
    assert [job.id for job in claimed] == ids
    runs = Runs(expected=12)
    other = Worker(db, clock, [runs.kind()], lease=LEASE)
    clock.advance(LEASE - timedelta(seconds=1))
    assert await other.drain() == 0, "the leases still hold"
    clock.advance(timedelta(seconds=1))
    assert await other.drain() == 12
    assert sorted(runs.ran) == list(range(12)) and await queue_is_empty(db)


async def test_the_heartbeat_renews_every_lease_of_a_batch_while_it_runs(db, clock):
    runs = Runs(expected=5)
    runs.release.clear()
    worker = Worker(db, clock, [runs.kind()], lease=LEASE, poll_seconds=3600)
    other = Worker(db, clock, [runs.kind()], lease=LEASE)
    ids = await enqueue_many(db, clock, 5)
    await worker.start()
    try:
        await asyncio.wait_for(runs.started.wait(), 5)
        for _ in range(4):
            clock.advance(LEASE / 3)
            await lease_reaches(db, ids, clock.now() + LEASE)
            assert await other.drain() == 0, "another worker took a job whose batch still runs"
        runs.release.set()
        await asyncio.wait_for(runs.all_ran.wait(), 10)
    finally:
        runs.release.set()
        await worker.stop()
    assert runs.calls == [[0, 1, 2, 3, 4]] and await queue_is_empty(db)


async def test_stop_waits_for_the_batch_under_way(db, clock):
    runs = Runs(expected=3)
    runs.release.clear()
    worker = Worker(db, clock, [runs.kind()], poll_seconds=3600)
    await enqueue_many(db, clock, 3)
    await worker.start()
    await asyncio.wait_for(runs.started.wait(), 5)
    stopping = asyncio.create_task(worker.stop())
    await asyncio.sleep(0.05)
    assert not stopping.done(), "stop returned while a batch was still running"
    runs.release.set()
    await asyncio.wait_for(stopping, 5)
    assert sorted(runs.ran) == [0, 1, 2] and await queue_is_empty(db)


async def lease_reaches(db, job_ids, lease_until) -> None:
    """Waits for the worker to write the leases (a database write, so polled, with a deadline)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while [job for job in [await stored.get_job(db, job_id) for job_id in job_ids] if job.locked_until != lease_until]:
        assert loop.time() < deadline, f"the leases were not renewed to {lease_until}"
        await asyncio.sleep(0.01)
