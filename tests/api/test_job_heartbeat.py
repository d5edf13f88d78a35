"""Job leases: a worker renews the lease of a job while its handler runs (the heartbeat), so a job that
outlives its lease is not taken over; a job whose worker stopped renewing is, once the lease ran out."""

import asyncio
from datetime import timedelta

import storage.jobs as stored
from signsvc.infra import jobs
from signsvc.infra.jobs import Kind, Worker

LEASE = timedelta(minutes=5)
KIND = "test.slow"


class Slow:
    """A handler that runs until it is released."""

    def __init__(self) -> None:
        self.started, self.release = asyncio.Event(), asyncio.Event()
        self.runs = 0

    async def __call__(self, payload) -> None:
        self.runs += 1
        self.started.set()
        await self.release.wait()


def make_worker(db, clock, handler) -> Worker:
    return Worker(db, clock, [Kind(KIND, handler)], lease=LEASE)


async def enqueue(db, clock):
    async with db.transaction() as tx:
        return await jobs.enqueue(tx, clock, KIND, {})


async def lease_reaches(db, job_id, lease_until) -> None:
    """Waits for the heartbeat to write the lease (a database write, so polled, with a deadline)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while (await stored.get_job(db, job_id)).locked_until != lease_until:
        assert loop.time() < deadline, f"the lease was not renewed to {lease_until}"
        await asyncio.sleep(0.01)


async def test_a_job_that_outlives_its_lease_is_renewed_and_not_taken_over_while_it_runs(db, clock):
    slow = Slow()
    worker, other = make_worker(db, clock, slow), make_worker(db, clock, slow)
    job = await enqueue(db, clock)
    first_lease_end = clock.now() + LEASE
    running = asyncio.create_task(worker.drain())
    await asyncio.wait_for(slow.started.wait(), 5)
    for _ in range(4):
        clock.advance(LEASE / 3)
        await lease_reaches(db, job.id, clock.now() + LEASE)
        assert await other.drain() == 0, "another worker took a job whose handler still runs"
    assert clock.now() > first_lease_end, "the job outlived its first lease"
    slow.release.set()
    assert await asyncio.wait_for(running, 5) == 1
    assert slow.runs == 1, "the job ran once"
    assert await stored.get_job(db, job.id) is None, "the job finished and left the queue"
    assert await other.drain() == 0


async def test_a_job_whose_worker_stopped_renewing_is_taken_over_once_the_lease_ran_out(db, clock):
    slow = Slow()
    slow.release.set()
    job = await enqueue(db, clock)
    # Claimed by a worker that dies at once: nobody renews its lease.
    await stored.claim_job(db, worker="a-worker-that-died", now=clock.now(), lease_until=clock.now() + LEASE)
    other = make_worker(db, clock, slow)
    clock.advance(LEASE - timedelta(seconds=1))
    assert await other.drain() == 0, "the lease still holds"
    clock.advance(timedelta(seconds=1))
    assert await other.drain() == 1
    assert slow.runs == 1 and await stored.get_job(db, job.id) is None


async def test_the_heartbeat_stops_when_the_handler_ends(db, clock):
    async def again_in_an_hour(payload):
        return clock.now() + timedelta(hours=1)

    worker = make_worker(db, clock, again_in_an_hour)
    job = await enqueue(db, clock)
    assert await worker.drain() == 1
    assert not [task for task in asyncio.all_tasks() if task.get_name().endswith("-heartbeat")]
    clock.advance(LEASE)
    waiting = await stored.get_job(db, job.id)
    assert (waiting.status.value, waiting.locked_by, waiting.locked_until) == ("pending", None, None)


async def test_the_heartbeat_stops_when_the_handler_ends_as_it_moves_the_clock_back(db, clock):
    """The heartbeat told that the clock moved and, a turn of the loop later, that the handler ended (a handler
    that moves the testing clock, as the fuzzer's requests do): it still ends, and a clock set back a year does not
    keep it waiting for the year to pass. (Python 3.11's `asyncio.wait_for` drops a cancellation that comes just
    after what it waits for is done.)"""

    async def sets_the_clock_back(payload):
        await asyncio.sleep(0)  # the heartbeat waits for the time to renew
        clock.set(clock.now() - timedelta(days=365))
        await asyncio.sleep(0)

    worker = make_worker(db, clock, sets_the_clock_back)
    await enqueue(db, clock)
    assert await asyncio.wait_for(worker.drain(), 5) == 1
    assert not [task for task in asyncio.all_tasks() if task.get_name().endswith("-heartbeat")]
