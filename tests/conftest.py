"""What every tier shares: the backends, the PDF pool, a local webhook receiver, the test clock, and the
fixture modules of tests/support (local HTTPS and timestamp servers, the system-software rule).

Tiers: tests/unit (no app, no database), tests/pdf (the documents the service writes: drawn, sealed, verified),
tests/api (the app over HTTP, on SQLite and Postgres), tests/process (real `python run.py` processes),
tests/browser (chromium). Tier fixtures live in each tier's conftest.py.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import pytest

from signsvc.infra.clock import ManualClock
from signsvc.infra.pool import PdfPool
from tests.support.databases import BACKENDS, Migrated, PostgresSchema
from tests.support.receiver import Receiver

pytest_plugins = ["tests.support.system", "tests.support.https", "tests.support.tsa", "tests.support.s3"]

for name in [
    name
    for name in os.environ
    if name.startswith("SIGNSVC_") and name not in ("SIGNSVC_TEST_POSTGRES_URL", "SIGNSVC_TEST_REQUIRE_SYSTEM")
]:
    del os.environ[name]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(scope="session")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Migrated]:
    """The migrated databases this test process hands out (tests/support/databases.py)."""
    databases = Migrated(tmp_path_factory.mktemp("migrated"))
    yield databases
    databases.close()


@pytest.fixture
async def database_url(
    backend: str, tmp_path, migrated: Migrated, request: pytest.FixtureRequest
) -> AsyncIterator[str]:
    """A URL of an empty database of the backend under test: a file in the test's own directory, or a
    Postgres schema of its own, so tests in parallel workers never share one.

    A test that uses `db`, which migrates the database before the test runs, gets one migrated already and
    without rows (`Migrated`): a copy of a migrated SQLite file, or one of the migrated Postgres schemas of
    this test process, emptied since the test that used it before. The others get an empty database, as
    `python run.py` finds a new one."""
    path = tmp_path / "signsvc.sqlite3"
    if "db" in request.fixturenames:
        if backend == "sqlite":
            yield await migrated.sqlite_url(path)
            return
        url = await migrated.postgres_url()
        yield url
        migrated.give_back(url)
        return
    if backend == "sqlite":
        yield f"sqlite:///{path}"
        return
    async with PostgresSchema() as schema:
        yield schema.url


@pytest.fixture
def clock() -> ManualClock:
    # Imported here: tests/support/app.py loads the whole app and the OpenAPI validator, which every process of
    # every tier would otherwise pay for at its start (half a second of CPU), the unit tier's included.
    from tests.support.app import START

    return ManualClock(START)


@pytest.fixture(scope="session")
def pdf_pool():
    """One process pool per test process (each xdist worker has its own): workers are slow to start and
    keep no state."""
    pool = PdfPool(workers=2)
    yield pool
    pool.close()


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    """A real local webhook receiver (tests/support/receiver.py)."""
    receiver = await Receiver().start()
    yield receiver
    await receiver.stop()
