"""Postgres restarted under load: while it is down every request answers 503 at once (never hangs, never 500), and
once it is back the service serves again and its jobs run, by itself, without a restart of its own."""

import asyncio

import aiohttp
import pytest

from tests.support import service
from tests.support.documents import b64, pdf
from tests.support.own_postgres import OwnPostgres, available
from tests.support.receiver import Receiver
from tests.support.system import requirement

KEY = "live-key-of-the-restart"
# Not a measure of speed: a request that does not answer within this long hangs instead of failing fast.
HANG_SECONDS = 10
# A connection cut in the middle of a query is left in a state of its own; several restarts meet most of them.
RESTARTS = 3
POSTGRES_SERVER = requirement(
    "a Postgres server of the test's own (initdb, pg_ctl)", package="postgresql", present=available
)


@pytest.fixture
async def own_postgres():
    database = await OwnPostgres().create()
    yield database
    await database.remove()


@POSTGRES_SERVER
async def test_requests_fail_fast_while_postgres_restarts_and_the_service_recovers_by_itself(own_postgres, tmp_path):
    receiver = await Receiver().start()
    server = await service.start(
        SIGNSVC_DATABASE_URL=own_postgres.url,
        SIGNSVC_DATA_DIR=str(tmp_path / "data"),
        SIGNSVC_API_KEY=KEY,
        SIGNSVC_WEBHOOK_URL=receiver.url(),
        SIGNSVC_RATE_LIMIT_PER_KEY="0",
        SIGNSVC_RATE_LIMIT_PER_IP="0",
    )
    stderr = server.stderr
    statuses: list[int] = []
    try:
        async with aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as session:

            async def status(path: str) -> int:
                async with session.get(server.api + path) as reply:
                    return reply.status

            async def load() -> None:
                while not stopping.is_set():  # a flag, not cancel(): Python 3.11's wait_for can swallow a cancel
                    async with asyncio.timeout(HANG_SECONDS):  # raises, failing the test, if a request hangs
                        statuses.append(await status("/templates"))

            stopping = asyncio.Event()
            loads = [asyncio.create_task(load()) for _ in range(4)]
            try:
                await _until(lambda: statuses.count(200) >= 20)
                for _ in range(RESTARTS):
                    await own_postgres.stop()
                    await _until(lambda: statuses[-8:] == [503] * 8)
                    async with session.get(f"{server.site}/health") as health:
                        assert health.status == 503
                    await own_postgres.start()
                    await _until(lambda: statuses[-8:] == [200] * 8)
            finally:
                stopping.set()
                await asyncio.gather(*loads)
            async with session.post(
                f"{server.api}/templates",
                json={"name": "After the restart", "documents": [{"name": "d", "file": b64(pdf())}]},
            ) as reply:
                assert reply.status == 201
            delivered = await receiver.wait_for(1, timeout=30)
            assert delivered[0].headers["X-Service-Event-Type"] == "template.created"
    finally:
        await server.stop()
        await receiver.stop()
    assert set(statuses) == {200, 503}
    assert [line for line in (await stderr.rest()).splitlines() if "unhandled error" in line] == []


async def _until(done, timeout: float = 30) -> None:
    """Waits for what other tasks and processes do (real I/O), polling."""
    async with asyncio.timeout(timeout):
        while not done():
            await asyncio.sleep(0.05)
