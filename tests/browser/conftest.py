"""The browser tier: the signing pages in Debian's chromium, driven by Playwright, against the app served
on a real socket with its worker running (so the completed copy gets made while the page waits).

Playwright's own browser download cannot run here: the tests launch the system's `chromium` and follow
the rule for system software (each module is marked CHROMIUM: skipped when it is missing, failed with
SIGNSVC_TEST_REQUIRE_SYSTEM=1). A failed test leaves a screenshot of its page in build/screenshots/. The
pages' storage is the API tier's: these tests run on SQLite only. `host` is another site, to frame pages in.

One chromium serves every test of a test process, as a browser serves many sites: starting Playwright and
chromium costs more than most tests. Each test has a browser context of its own (`page`, or one the test
makes), so no cookie, storage or cache passes from one test to the next. Playwright's objects belong to the
event loop that made them, so these tests and their async fixtures run on the session's event loop
(`BROWSER_LOOP` of tests/support/live_site.py, in each module's `pytestmark`); every fixture but `browser`
is still made and ended for each test.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from aiohttp import web
from aiohttp.test_utils import TestServer
from playwright.async_api import Browser, Page, async_playwright

from signsvc.infra.clock import ManualClock
from signsvc.infra.pool import PdfPool
from tests.support.app import Api
from tests.support.live_site import serving
from tests.support.paths import ROOT

SCREENSHOTS = ROOT / "build" / "screenshots"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    if report.when == "call":
        item.stash[FAILED] = report.failed
    return report


@pytest.fixture
def backend() -> str:
    return "sqlite"


@pytest_asyncio.fixture(loop_scope="session")
async def site(database_url: str, clock: ManualClock, pdf_pool: PdfPool, tmp_path) -> AsyncIterator[Api]:
    """The app on a real port, its worker running; an API client of it (tests/support/live_site.py)."""
    async with serving(database_url, clock, pdf_pool, tmp_path / "data") as api:
        yield api


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
        yield launched
        await launched.close()


@pytest_asyncio.fixture(loop_scope="session")
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


@pytest_asyncio.fixture(loop_scope="session")
async def host() -> AsyncIterator[dict[str, str]]:
    """Another site (another origin): serves `pages[path]` as HTML."""
    pages: dict[str, str] = {}

    async def show(request: web.Request) -> web.Response:
        return web.Response(text=pages[request.path], content_type="text/html")

    app = web.Application()
    app.router.add_get("/{name}", show)
    async with TestServer(app, host="localhost") as server:
        pages["origin"] = str(server.make_url("")).rstrip("/")
        yield pages
