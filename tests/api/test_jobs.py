"""Durable jobs: enqueue in a transaction, claim when due, retry with backoff, survive restarts."""

import asyncio
import functools
from datetime import timedelta

import pytest

import storage.jobs as stored
from signsvc.infra import jobs
from signsvc.infra.jobs import Kind, Worker
from signsvc.infra.retries import Backoff
from storage.outbound_records import JobStatus
from tests.support.databases import open_db


class Recorder:
    """A job handler that records what it ran and can be told to fail or to wait."""

    def __init__(self, fail_times: int = 0) -> None:
        self.payloads: list[dict] = []
        self.fail_times = fail_times
        self.ran = asyncio.Event()

    async def __call__(self, payload) -> None:
        self.payloads.append(payload)
        self.ran.set()
        if len(self.payloads) <= self.fail_times:
            raise RuntimeError("receiver down")


async def enqueue(db, clock, kind="test.record", payload=None, **kwargs):
    async with db.transaction() as tx:
        return await jobs.enqueue(tx, clock, kind, payload or {}, **kwargs)


def make_worker(db, clock, handler, **kwargs) -> Worker:
    return Worker(db, clock, [Kind("test.record", handler, backoff=Backoff(attempts=3))], **kwargs)


async def test_a_job_runs_with_its_payload_and_leaves_the_queue(db, clock):
    recorder = Recorder()
    job = await enqueue(db, clock, payload={"n": 1})
    assert await make_worker(db, clock, recorder).drain() == 1
    assert recorder.payloads == [{"n": 1}]
    assert await stored.get_job(db, job.id) is None


async def test_a_job_scheduled_in_the_future_runs_when_the_clock_reaches_it(db, clock):
    recorder = Recorder()
    worker = make_worker(db, clock, recorder)
    await enqueue(db, clock, run_at=clock.now() + timedelta(hours=1))
    assert await worker.drain() == 0
    clock.advance(timedelta(minutes=59, seconds=59))
    assert await worker.drain() == 0
    clock.advance(timedelta(seconds=1))
    assert await worker.drain() == 1


async def test_a_failed_job_is_retried_with_backoff_then_marked_failed(db, clock):
    recorder = Recorder(fail_times=10)
    worker = make_worker(db, clock, recorder)
    job = await enqueue(db, clock)
    await worker.drain()
    retry = await stored.get_job(db, job.id)
    assert (retry.status, retry.attempts, retry.run_at) == (JobStatus.PENDING, 1, clock.now() + timedelta(minutes=1))
    assert retry.last_error == "RuntimeError: receiver down"
    assert await worker.drain() == 0, "not due before the backoff has passed"
    clock.advance(timedelta(minutes=1))
    await worker.drain()
    assert (await stored.get_job(db, job.id)).run_at == clock.now() + timedelta(minutes=2)
    clock.advance(timedelta(minutes=2))
    await worker.drain()
    failed = await stored.get_job(db, job.id)
    assert (failed.status, failed.attempts, len(recorder.payloads)) == (JobStatus.FAILED, 3, 3)
    clock.advance(timedelta(days=1))
    assert await worker.drain() == 0, "a failed job stays failed"


async def test_a_job_that_succeeds_on_retry_leaves_the_queue(db, clock):
    recorder = Recorder(fail_times=1)
    worker = make_worker(db, clock, recorder)
    job = await enqueue(db, clock)
    await worker.drain()
    clock.advance(timedelta(minutes=1))
    await worker.drain()
    assert len(recorder.payloads) == 2
    assert await stored.get_job(db, job.id) is None


async def test_a_job_of_an_unknown_kind_is_failed_not_lost(db, clock):
    job = await enqueue(db, clock, kind="test.nobody")
    await make_worker(db, clock, Recorder()).drain()
    failed = await stored.get_job(db, job.id)
    assert failed.status == JobStatus.FAILED
    assert "no handler for job kind 'test.nobody'" in failed.last_error


async def test_a_dedupe_key_keeps_one_job(db, clock):
    first = await enqueue(db, clock, dedupe_key="once")
    second = await enqueue(db, clock, dedupe_key="once")
    assert first is not None and second is None


async def test_a_job_enqueued_in_a_rolled_back_transaction_does_not_exist(db, clock):
    with pytest.raises(RuntimeError):
        async with db.transaction() as tx:
            job = await jobs.enqueue(tx, clock, "test.record", {})
            raise RuntimeError("the change failed")
    assert await stored.get_job(db, job.id) is None


async def test_a_pending_job_survives_a_restart(db, database_url, clock):
    first = await open_db(database_url)
    await enqueue(first, clock, payload={"n": 7})
    await first.close()
    second = await open_db(database_url)
    try:
        recorder = Recorder()
        worker = make_worker(second, clock, recorder)
        await worker.start()
        await asyncio.wait_for(recorder.ran.wait(), 5)
        await worker.stop()
    finally:
        await second.close()
    assert recorder.payloads == [{"n": 7}]


async def test_a_job_running_when_its_process_died_runs_again_after_restart(db, database_url, clock):
    first = await open_db(database_url)
    job = await enqueue(first, clock)
    await stored.claim_job(
        first, worker="a-process-that-dies", now=clock.now(), lease_until=clock.now() + timedelta(minutes=5)
    )
    await first.close()
    second = await open_db(database_url)
    try:
        recorder = Recorder()
        worker = make_worker(second, clock, recorder, lease=timedelta(minutes=5))
        await worker.start()
        await worker.stop()
        if not second.single_process:
            assert await worker.drain() == 0, "another process may still hold the lease"
            clock.advance(timedelta(minutes=5))
        assert await worker.drain() == 1
    finally:
        await second.close()
    assert len(recorder.payloads) == 1
    assert await stored.get_job(db, job.id) is None


async def test_two_workers_on_one_database_never_run_the_same_job_twice(db, database_url, clock):
    dbs = [await open_db(database_url) for _ in range(2)]
    running, runs = set(), []

    async def handler(name, payload):
        assert payload["n"] not in running, "a job ran twice at once"
        running.add(payload["n"])
        runs.append((name, payload["n"]))
        for _ in range(3):
            await asyncio.sleep(0)
        running.discard(payload["n"])

    try:
        for n in range(40):
            await enqueue(dbs[0], clock, payload={"n": n})
        workers = [
            Worker(db, clock, [Kind("test.record", functools.partial(handler, name))])
            for db, name in zip(dbs, "AB", strict=True)
        ]
        await asyncio.gather(*(worker.drain() for worker in workers))
    finally:
        for db in dbs:
            await db.close()
    assert sorted(n for _, n in runs) == list(range(40)), "every job ran exactly once"


async def test_the_worker_is_woken_by_the_commit_not_by_polling(db, clock):
    recorder = Recorder()
    worker = make_worker(db, clock, recorder, poll_seconds=3600)
    await worker.start()
    try:
        await asyncio.sleep(0.05)
        await enqueue(db, clock)
        await asyncio.wait_for(recorder.ran.wait(), 5)
    finally:
        await worker.stop()


async def test_a_worker_in_another_process_is_woken_by_the_commit(db, database_url, clock):
    if db.single_process:
        pytest.skip("an SQLite database serves one process")
    recorder = Recorder()
    worker = make_worker(db, clock, recorder, poll_seconds=3600)
    await worker.start()
    other_process = await open_db(database_url)
    try:
        await asyncio.sleep(0.05)
        await enqueue(other_process, clock)
        await asyncio.wait_for(recorder.ran.wait(), 5)
    finally:
        await worker.stop()
        await other_process.close()


async def test_the_running_worker_runs_a_timer_when_the_clock_is_moved(db, clock):
    recorder = Recorder()
    worker = make_worker(db, clock, recorder, poll_seconds=3600)
    await enqueue(db, clock, run_at=clock.now() + timedelta(days=2))
    await worker.start()
    try:
        await asyncio.sleep(0.05)
        assert not recorder.ran.is_set()
        clock.advance(timedelta(days=2))
        await asyncio.wait_for(recorder.ran.wait(), 5)
    finally:
        await worker.stop()


async def test_stop_waits_for_the_job_under_way(db, clock):
    release, started = asyncio.Event(), asyncio.Event()

    async def slow(payload):
        started.set()
        await release.wait()

    worker = Worker(db, clock, [Kind("test.record", slow)])
    job = await enqueue(db, clock)
    await worker.start()
    await asyncio.wait_for(started.wait(), 5)
    stopping = asyncio.create_task(worker.stop())
    await asyncio.sleep(0.05)
    assert not stopping.done(), "stop returned while a job was still running"
    release.set()
    await asyncio.wait_for(stopping, 5)
    assert await stored.get_job(db, job.id) is None, "the job finished and left the queue"


async def test_a_periodic_job_is_scheduled_once_and_runs_every_interval_from_one_interval_after_the_first_start(
    db, clock
):
    recorder = Recorder()
    kind = Kind("test.record", recorder, every=timedelta(minutes=5))
    worker = Worker(db, clock, [kind])
    await jobs.schedule_periodic(db, clock, [kind])
    await jobs.schedule_periodic(db, clock, [kind])
    assert await worker.drain() == 0
    clock.advance(timedelta(minutes=5))
    assert await worker.drain() == 1
    assert await worker.drain() == 0
    clock.advance(timedelta(minutes=5))
    assert await worker.drain() == 1


async def test_a_handler_that_answers_a_time_runs_again_at_that_time(db, clock):
    runs = []

    async def handler(payload):
        runs.append(clock.now())
        return clock.now() + timedelta(minutes=10) if len(runs) == 1 else None

    worker = Worker(db, clock, [Kind("test.record", handler)])
    job = await enqueue(db, clock)
    await worker.drain()
    again = await stored.get_job(db, job.id)
    assert (again.status, again.run_at, again.attempts, again.last_error) == (
        JobStatus.PENDING,
        clock.now() + timedelta(minutes=10),
        0,
        None,
    )
    assert await worker.drain() == 0
    clock.advance(timedelta(minutes=10))
    assert await worker.drain() == 1
    assert len(runs) == 2 and await stored.get_job(db, job.id) is None


async def test_bring_forward_makes_a_waiting_or_failed_job_due_now_or_adds_it(db, clock):
    waiting = await enqueue(db, clock, run_at=clock.now() + timedelta(hours=1), dedupe_key="waiting")
    worker = make_worker(db, clock, Recorder(fail_times=10))
    for key in ("waiting", "missing"):
        async with db.transaction() as tx:
            await jobs.bring_forward(tx, clock, "test.record", {"key": key}, dedupe_key=key)
    assert (await stored.get_job(db, waiting.id)).run_at == clock.now()
    assert await worker.drain() == 2
    for _ in range(2):
        clock.advance(timedelta(hours=1))
        await worker.drain()
    failed = await stored.get_job(db, waiting.id)
    assert failed.status == JobStatus.FAILED
    async with db.transaction() as tx:
        await jobs.bring_forward(tx, clock, "test.record", {}, dedupe_key="waiting")
    assert (await stored.get_job(db, waiting.id)).status == JobStatus.PENDING


async def test_a_handler_that_gives_up_fails_its_job_at_once_without_retries(db, clock):
    async def hopeless(payload):
        raise jobs.GiveUp("the address does not exist")

    job = await enqueue(db, clock)
    await make_worker(db, clock, hopeless).drain()
    failed = await stored.get_job(db, job.id)
    assert (failed.status, failed.attempts, failed.last_error) == (
        JobStatus.FAILED,
        1,
        "GiveUp: the address does not exist",
    )


async def test_a_job_claimed_one_by_one_wakes_the_worker_at_its_commit(db, clock):
    recorder = Recorder()
    worker = make_worker(db, clock, recorder, poll_seconds=3600)
    await worker.start()
    try:
        await asyncio.sleep(0.05)
        await enqueue(db, clock, one_by_one=True)
        await asyncio.wait_for(recorder.ran.wait(), 5)
    finally:
        await worker.stop()


async def test_a_worker_running_all_the_jobs_it_may_makes_no_statement_for_another_added_one_by_one(db, clock):
    started, release, ran = asyncio.Event(), asyncio.Event(), []

    async def held(payload):
        ran.append(payload["n"])
        started.set()
        await release.wait()

    async def batch(payloads):
        return [None for _ in payloads]

    kinds = [Kind("test.record", held), Kind("test.batch", held, batch=batch)]
    worker = Worker(db, clock, kinds, concurrency=1, poll_seconds=3600)
    await enqueue(db, clock, payload={"n": 1}, one_by_one=True)
    await worker.start()
    try:
        await asyncio.wait_for(started.wait(), 5)
        await asyncio.sleep(0.05)  # the looks that followed the first claim are over
        before = db.statements
        await enqueue(db, clock, payload={"n": 2}, one_by_one=True)
        await asyncio.sleep(0.05)
        assert db.statements - before == 1, "the insert alone: no claim, no look at the next due time"
        release.set()
        async with asyncio.timeout(5):
            while ran != [1, 2]:
                await asyncio.sleep(0.01)
    finally:
        release.set()
        await worker.stop()
    assert await stored.next_job_at(db) is None, "both ran and left the queue"


async def test_due_jobs_waiting_for_a_place_do_not_have_a_busy_worker_look_again_until_one_finishes(db, clock):
    started, release, ran = asyncio.Event(), asyncio.Event(), []

    async def held(payload):
        ran.append(payload["n"])
        started.set()
        await release.wait()

    worker = make_worker(db, clock, held, concurrency=1, poll_seconds=3600)
    for n in (1, 2):
        await enqueue(db, clock, payload={"n": n})
    await worker.start()
    try:
        await asyncio.wait_for(started.wait(), 5)
        await asyncio.sleep(0.05)  # the look that claimed the first is over
        before = db.statements
        await asyncio.sleep(0.1)
        assert db.statements == before, "no look while the second waits for the first to finish"
        release.set()
        async with asyncio.timeout(5):
            while ran != [1, 2]:
                await asyncio.sleep(0.01)
    finally:
        release.set()
        await worker.stop()


def test_the_job_channels_fit_a_postgres_channel_name_after_the_longest_schema():
    from storage.postgres import LONGEST_SCHEMA

    for channel in (jobs.CHANNEL, jobs.ONE_BY_ONE_CHANNEL):
        assert LONGEST_SCHEMA + len(":") + len(channel) <= 63, channel  # Postgres' longest name
