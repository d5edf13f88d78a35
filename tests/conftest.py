"""Fixtures: every database test runs on SQLite and on Postgres; the app is driven over HTTP."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, AsyncIterator

import asyncpg
import pytest
from multidict import CIMultiDictProxy
from yarl import URL

from signsvc.accounts.accounts import Accounts, IssuedKeys
from signsvc.app import create_app
from signsvc.http.appkeys import WORKER
from signsvc.infra.clock import ManualClock
from signsvc.infra.config import Config
from signsvc.infra.pool import PdfPool
from storage import Database
from storage.migrations import migrate
from storage.postgres import PostgresDatabase
from storage.sqlite import SQLiteDatabase
from tests import probe
from tests.openapi_check import OpenApiChecker
from tests.receiver import Receiver

POSTGRES_URL = os.environ.get("SIGNSVC_TEST_POSTGRES_URL")
LIVE_KEY = "live-key-of-the-default-user-0000000000000"
TEST_KEY = "test-key-of-the-default-user-0000000000000"
START = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)

for name in [name for name in os.environ if name.startswith("SIGNSVC_") and name != "SIGNSVC_TEST_POSTGRES_URL"]:
    del os.environ[name]

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.skipif(
    not POSTGRES_URL, reason="SIGNSVC_TEST_POSTGRES_URL is not set: Postgres tests skipped"))]


def postgres_url(schema: str) -> str:
    """The test database URL with its own schema, so every test starts empty."""
    return str(URL(POSTGRES_URL).update_query(search_path=schema))


class PostgresSchema:
    """A throwaway schema in the test database; connection failures fail the run, never skip it."""

    def __init__(self) -> None:
        self.name = f"t_{uuid.uuid4().hex[:12]}"
        self.url = postgres_url(self.name)

    async def __aenter__(self) -> "PostgresSchema":
        conn = await asyncpg.connect(POSTGRES_URL)
        await conn.execute(f"CREATE SCHEMA {self.name}")
        await conn.close()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        conn = await asyncpg.connect(POSTGRES_URL)
        await conn.execute(f"DROP SCHEMA {self.name} CASCADE")
        await conn.close()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
async def database_url(backend: str, tmp_path) -> AsyncIterator[str]:
    """A URL of an empty database of the backend under test."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'signsvc.sqlite3'}"
        return
    async with PostgresSchema() as schema:
        yield schema.url


async def open_db(url: str) -> Database:
    if url.startswith("sqlite:///"):
        return await SQLiteDatabase.open(url.removeprefix("sqlite:///"))
    return await PostgresDatabase.open(url)


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    database = await open_db(database_url)
    await migrate(database)
    yield database
    await database.close()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def config(tmp_path) -> Config:
    return Config(api_key=LIVE_KEY, test_api_key=TEST_KEY, site_url="http://signsvc.test",
                  data_dir=str(tmp_path / "data"))


@dataclass
class Reply:
    status: int
    headers: CIMultiDictProxy[str]
    body: bytes

    @property
    def json(self) -> Any:
        import json

        return json.loads(self.body)


class Api:
    """Talks HTTP to the app with a key; checks each /api response against the OpenAPI document."""

    checker = OpenApiChecker()

    def __init__(self, client: Any, key: str | None = LIVE_KEY) -> None:
        self.client = client
        self.key = key
        self.app = client.app

    def with_key(self, key: str | None) -> "Api":
        return Api(self.client, key)

    async def request(self, method: str, path: str, *, json: Any = None, data: Any = None,
                      headers: dict[str, str] | None = None) -> Reply:
        headers = dict(headers or {})
        if self.key is not None:
            headers.setdefault("X-Auth-Token", self.key)
        async with self.client.request(method, path, json=json, data=data, headers=headers) as response:
            reply = Reply(response.status, response.headers, await response.read())
        if response.url.path.startswith("/api"):
            self.checker.check(method, response.url.path, reply.status, reply.headers, reply.body)
        return reply

    async def get(self, path: str, **kwargs: Any) -> Reply:
        return await self.request("GET", path, **kwargs)

    async def post(self, path: str, **kwargs: Any) -> Reply:
        return await self.request("POST", path, **kwargs)

    async def put(self, path: str, **kwargs: Any) -> Reply:
        return await self.request("PUT", path, **kwargs)

    async def delete(self, path: str, **kwargs: Any) -> Reply:
        return await self.request("DELETE", path, **kwargs)


@pytest.fixture(scope="session")
def pdf_pool():
    """One process pool for the whole run: workers are slow to start and keep no state."""
    pool = PdfPool(workers=2)
    yield pool
    pool.close()


@pytest.fixture
def make_app(db: Database, clock: ManualClock, config: Config, pdf_pool: PdfPool):
    def make(downloader: Any = None, **changes: Any):
        app = create_app(config.replace(**changes), clock=clock, db=db, pool=pdf_pool, downloader=downloader,
                         background=False)
        probe.add_routes(app)
        return app

    return make


@pytest.fixture
async def api(aiohttp_client, make_app) -> Api:
    return Api(await aiohttp_client(make_app()))


@pytest.fixture
def worker(api: Api):
    return api.app[WORKER]


@pytest.fixture
async def other_account(api: Api, db: Database, clock: ManualClock) -> IssuedKeys:
    """A second approved account with keys of its own."""
    return await Accounts(db, clock).create_account(name="Other", email="other@example.com", approved=True)


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    """A real local webhook receiver (tests/receiver.py)."""
    receiver = await Receiver().start()
    yield receiver
    await receiver.stop()

