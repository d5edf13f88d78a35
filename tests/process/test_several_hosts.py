"""Several hosts, one Postgres: three `python run.py` processes on ports of their own (as three hosts behind a
proxy), one database schema, one S3-compatible bucket (a local emulator) and no shared disk. API calls and signers
are spread over them and one is killed (SIGKILL) mid-work: every submission completes once, every webhook event
arrives, no job is lost or failed, the rate limits hold across them, and a file uploaded through one is served by
the others."""

import asyncio
import contextlib
import itertools
import signal
import time
from urllib.parse import urlsplit

import aiohttp
import asyncpg
import pytest
from yarl import URL

from tests.support import service
from tests.support.databases import BACKENDS, NO_POSTGRES, POSTGRES_URL
from tests.support.documents import b64, pdf
from tests.support.receiver import Receiver
from tests.support.signing import ANN_VALUES, BOB_VALUES, FIELDS

LIVE_KEY, TEST_KEY = "live-key-of-several-hosts", "test-key-of-several-hosts"
SUBMISSIONS = 6
PER_KEY_LIMIT = 200
WINDOW_SECONDS = 300
pytestmark = [
    pytest.mark.skipif(not POSTGRES_URL, reason=NO_POSTGRES),
    pytest.mark.parametrize("backend", [b for b in BACKENDS if b != "sqlite"], indirect=True),
]


async def call(session: aiohttp.ClientSession, method: str, url: str, key: str | None = LIVE_KEY, **kwargs):
    headers = {"X-Auth-Token": key} if key else {}
    async with session.request(method, url, headers=headers, **kwargs) as reply:
        return (
            reply.status,
            await reply.read(),
            (await reply.json() if reply.content_type == "application/json" else None),
        )


def on(host: service.Service, link: str) -> str:
    """A link the service made, asked of another host (they share the secret key that signs links)."""
    parts = urlsplit(link)
    return f"{host.site}{parts.path}" + (f"?{parts.query}" if parts.query else "")


@pytest.fixture
async def receiver():
    receiver = await Receiver().start()
    yield receiver
    await receiver.stop()


@pytest.fixture
async def hosts(database_url, s3_url, receiver, tmp_path):
    started = []
    for number in range(3):  # one after another, as a deployment migrates once before it scales out
        started.append(
            await service.start(
                SIGNSVC_DATABASE_URL=database_url,
                SIGNSVC_STORAGE_URL=s3_url,
                SIGNSVC_DATA_DIR=str(tmp_path / f"host{number}"),
                SIGNSVC_API_KEY=LIVE_KEY,
                SIGNSVC_TEST_API_KEY=TEST_KEY,
                SIGNSVC_WEBHOOK_URL=receiver.url(),
                SIGNSVC_RATE_LIMIT_PER_KEY=str(PER_KEY_LIMIT),
                SIGNSVC_RATE_LIMIT_PER_IP="0",
                SIGNSVC_JOB_LEASE_SECONDS="5",
            )
        )
    yield started
    for host in started:
        if host.process.returncode is None:
            await host.stop()


async def test_three_hosts_on_one_postgres_and_one_bucket_share_rate_limits_and_lose_nothing_when_one_is_killed(
    hosts, receiver, database_url
):
    a, b, c = hosts
    async with aiohttp.ClientSession() as session:
        await _the_rate_limit_of_a_key_holds_across(hosts, session)
        template = (
            await call(
                session,
                "POST",
                f"{a.api}/templates",
                json={"name": "NDA", "documents": [{"name": "nda", "file": b64(pdf()), "fields": FIELDS}]},
            )
        )[2]
        uploaded = template["documents"][0]["url"]
        served = {(await call(session, "GET", on(host, uploaded), key=None))[1] for host in hosts}
        assert len(served) == 1 and served.pop().startswith(b"%PDF")

        creators = itertools.cycle(hosts)
        submissions = [
            (
                await call(
                    session,
                    "POST",
                    f"{next(creators).api}/submissions",
                    json={
                        "template_id": template["id"],
                        "send_email": False,
                        "submitters": [{"email": f"ann{n}@example.com"}, {"email": f"bob{n}@example.com"}],
                    },
                )
            )[2]
            for n in range(SUBMISSIONS)
        ]
        firsts = [
            await sign(session, host, signers[0]["slug"], ANN_VALUES)
            for host, signers in zip(itertools.cycle(hosts), submissions)
        ]
        await _while_it_holds_a_job(c, database_url)
        c.process.send_signal(signal.SIGKILL)
        await c.process.wait()
        seconds = [
            await sign(session, host, signers[1]["slug"], BOB_VALUES)
            for host, signers in zip(itertools.cycle([a, b]), submissions)
        ]
        assert firsts + seconds == [200] * 2 * SUBMISSIONS

        await receiver.wait_until(
            lambda received: len(_event_ids(received, "submission.completed")) == SUBMISSIONS, timeout=120
        )
        await receiver.wait_until(
            lambda received: len(_event_ids(received, "form.completed")) == 2 * SUBMISSIONS, timeout=60
        )
        for number, signers in enumerate(submissions):
            host = (a, b)[number % 2]
            status, _, shown = await call(session, "GET", f"{host.api}/submissions/{signers[0]['submission_id']}")
            assert status == 200 and shown["status"] == "completed"
            assert len(shown["documents"]) == 1 and shown["audit_log_url"]
            assert (await call(session, "GET", on((b, a)[number % 2], shown["combined_document_url"]), key=None))[
                1
            ].startswith(b"%PDF")

    await _every_event_arrived(receiver, database_url)
    await _no_job_lost_or_failed(database_url)


async def _the_rate_limit_of_a_key_holds_across(hosts: list[service.Service], session: aiohttp.ClientSession) -> None:
    """The test key's requests, half again as many as its limit, spread over the hosts at once."""
    await _not_at_the_end_of_a_window()
    statuses = await asyncio.gather(
        *(call(session, "GET", f"{host.api}/user", key=TEST_KEY) for _ in range(PER_KEY_LIMIT // 2) for host in hosts)
    )
    admitted = [status for status, _, _ in statuses].count(200)
    assert {status for status, _, _ in statuses} == {200, 429}
    assert PER_KEY_LIMIT * 3 // 4 <= admitted <= PER_KEY_LIMIT


async def _while_it_holds_a_job(host: service.Service, database_url: str) -> None:
    """Waits (a few seconds at most) until the host's worker runs a job (the first signers' documents, their
    webhooks), so that the kill most likely lands mid-work and another host takes the job over."""
    query = f"SELECT 1 FROM jobs WHERE status = 'running' AND locked_by LIKE '%:{host.process.pid}:%'"
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(5):
            while not await _query(database_url, query):
                await asyncio.sleep(0.005)


async def _not_at_the_end_of_a_window() -> None:
    """The processes run on the system clock, whose five-minute windows the burst must not straddle (it would be
    counted in two)."""
    left = WINDOW_SECONDS - time.time() % WINDOW_SECONDS
    if left < 5:
        await asyncio.sleep(left + 0.1)


async def sign(session: aiohttp.ClientSession, host: service.Service, slug: str, values: dict) -> int:
    await call(session, "POST", f"{host.site}/s/{slug}/view", key=None, json={})
    return (await call(session, "POST", f"{host.site}/s/{slug}/complete", key=None, json={"values": values}))[0]


def _event_ids(received, event_type: str) -> set[str]:
    return {
        request.headers["X-Service-Event-Id"]
        for request in received
        if request.headers.get("X-Service-Event-Type") == event_type
    }


async def _every_event_arrived(receiver: Receiver, database_url: str) -> None:
    """Every event the database recorded arrives, by its event id (those the killed host was sending once their jobs'
    leases ran out). Deliveries are at least once: what the killed host had sent but not yet recorded as sent comes
    again, with the same event id, so a receiver that deduplicates by event id sees each event once."""
    recorded = {row["uuid"] for row in await _query(database_url, "SELECT uuid FROM events")}
    await receiver.wait_until(
        lambda received: recorded <= {r.headers["X-Service-Event-Id"] for r in received}, timeout=60
    )
    assert {request.headers["X-Service-Event-Id"] for request in receiver.received} == recorded


async def _no_job_lost_or_failed(database_url: str) -> None:
    """Soon nothing is left but the periodic jobs, waiting for their next run: the jobs the killed host held run
    elsewhere once their leases run out."""
    query = (
        "SELECT kind, status, last_error FROM jobs "
        "WHERE dedupe_key IS NULL OR dedupe_key NOT LIKE 'periodic:%' OR NOT run_at > now()"
    )
    async with asyncio.timeout(60):
        while left := [dict(row) for row in await _query(database_url, query)]:
            assert all(job["status"] != "failed" for job in left), left
            await asyncio.sleep(0.2)


async def _query(database_url: str, sql: str) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(POSTGRES_URL, server_settings={"search_path": URL(database_url).query["search_path"]})
    try:
        return await conn.fetch(sql)
    finally:
        await conn.close()
