"""The API tier: the app over HTTP on a fresh database of each backend.

`db` and everything above it (`make_app`, `api`, `worker`) inherit `database_url`'s parametrization, so
every test here runs on SQLite and on Postgres.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from signsvc.accounts.accounts import Accounts, IssuedKeys
from signsvc.app import create_app
from signsvc.http.appkeys import WORKER
from signsvc.infra.clock import ManualClock
from signsvc.infra.config import Config
from signsvc.infra.pool import PdfPool
from storage import Database
from storage.migrations import migrate
from tests.support import probe
from tests.support.app import LIVE_KEY, TEST_KEY, Api
from tests.support.databases import open_db
from tests.support.smtp_server import SmtpServer


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    database = await open_db(database_url)
    await migrate(database)
    yield database
    await database.close()


@pytest.fixture
def config(tmp_path) -> Config:
    # The webhook tests' receivers listen on 127.0.0.1, which a public site refuses by default.
    return Config(
        api_key=LIVE_KEY,
        test_api_key=TEST_KEY,
        site_url="http://signsvc.test",
        data_dir=str(tmp_path / "data"),
        webhook_public_only=False,
    )


@pytest.fixture
def make_app(db: Database, clock: ManualClock, config: Config, pdf_pool: PdfPool):
    def make(downloader: Any = None, **changes: Any):
        app = create_app(
            config.replace(**changes), clock=clock, db=db, pool=pdf_pool, downloader=downloader, background=False
        )
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
async def smtp_server() -> AsyncIterator[SmtpServer]:
    """A local SMTP server that keeps what it receives."""
    async with SmtpServer() as server:
        yield server


@pytest.fixture
async def mailing(aiohttp_client, make_app, smtp_server) -> Api:
    """The API of a service that sends its email through the local SMTP server."""
    api = Api(await aiohttp_client(make_app(smtp_url=smtp_server.url)))
    await api.app[WORKER].drain()
    return api
