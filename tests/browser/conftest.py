"""The browser tier: the signing pages in Debian's chromium, driven by Playwright, against the app served
on a real socket with its worker running (so the completed copy gets made while the page waits).

Playwright's own browser download cannot run here: the tests launch the system's `chromium` and follow
the rule for system software (each module is marked CHROMIUM: skipped when it is missing, failed with SIGNSVC_TEST_REQUIRE_SYSTEM=1).
A failed test leaves a screenshot of its page in build/screenshots/. The pages' storage is the API
tier's: these tests run on SQLite only.
"""

from __future__ import annotations

import shutil
import socket
from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient, TestServer
from playwright.async_api import Browser, Page, async_playwright

from signsvc.app import create_app
from signsvc.infra.clock import ManualClock
from signsvc.infra.config import Config
from signsvc.infra.pool import PdfPool
from storage.migrations import migrate
from tests.support.app import LIVE_KEY, TEST_KEY, Api
from tests.support.databases import open_db
from tests.support.paths import ROOT

SCREENSHOTS = ROOT / "build" / "screenshots"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    if report.when == "call":
        item.stash[FAILED] = report.failed
    return report


FAILED = pytest.StashKey[bool]()


@pytest.fixture
def backend() -> str:
    return "sqlite"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
async def site(database_url: str, clock: ManualClock, pdf_pool: PdfPool, tmp_path) -> AsyncIterator[Api]:
    """The app on a real port of 127.0.0.1, its site URL that port, its worker running; an API client."""
    db = await open_db(database_url)
    await migrate(db)
    port = free_port()
    config = Config(api_key=LIVE_KEY, test_api_key=TEST_KEY, site_url=f"http://127.0.0.1:{port}",
                    data_dir=str(tmp_path / "data"))
    app = create_app(config, clock=clock, db=db, pool=pdf_pool)
    async with TestClient(TestServer(app, host="127.0.0.1", port=port)) as client:
        yield Api(client)
    await db.close()


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
        yield launched
        await launched.close()


@pytest.fixture
async def page(browser: Browser, request: pytest.FixtureRequest) -> AsyncIterator[Page]:
    """A page at 1280 px; script errors fail the test; on failure its screenshot is kept."""
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    opened = await context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    if request.node.stash.get(FAILED, False):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        await opened.screenshot(path=SCREENSHOTS / f"{request.node.name}.png", full_page=True)
    await context.close()
    assert errors == [], f"script errors on the page: {errors}"
