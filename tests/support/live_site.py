"""The app served on a real port of 127.0.0.1 with its worker running, as a browser reaches it."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from signsvc.app import create_app
from signsvc.infra.clock import ManualClock
from signsvc.infra.config import Config
from signsvc.infra.pool import PdfPool
from storage.migrations import migrate
from tests.support.app import LIVE_KEY, TEST_KEY, Api
from tests.support.databases import open_db

# The event loop of the browser tests and of their async fixtures: the session's, as the one chromium they
# share belongs to it (tests/browser/conftest.py).
BROWSER_LOOP = pytest.mark.asyncio(loop_scope="session")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@asynccontextmanager
async def serving(
    database_url: str, clock: ManualClock, pool: PdfPool, data_dir: Path, **changes: Any
) -> AsyncIterator[Api]:
    """The app on a fresh database, its site URL the port it listens on; an API client of it."""
    db = await open_db(database_url)
    await migrate(db)
    port = free_port()
    config = Config(
        api_key=LIVE_KEY, test_api_key=TEST_KEY, site_url=f"http://127.0.0.1:{port}", data_dir=str(data_dir), **changes
    )
    try:
        async with TestClient(
            TestServer(create_app(config, clock=clock, db=db, pool=pool), host="127.0.0.1", port=port)
        ) as client:
            yield Api(client)
    finally:
        await db.close()
