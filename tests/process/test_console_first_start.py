"""A self-hoster's first minute: `python run.py` prints a setup link; in a browser (here an HTTP client with
a cookie jar, over a real socket) it sets the first user's password and opens the console."""

import asyncio
import re

import aiohttp
import pytest
from yarl import URL

from tests.support import service
from tests.support.databases import BACKENDS, NO_POSTGRES, POSTGRES_URL

PASSWORD = "correct horse battery staple"


async def set_password(browser: aiohttp.ClientSession, setup_link: str) -> aiohttp.ClientResponse:
    """Sets the password through the setup link as a browser does; answers the page it lands on."""
    async with browser.get(setup_link) as page:
        csrf = re.search(r'name="csrf" value="([^"]+)"', await page.text()).group(1)
    form = {"csrf": csrf, "password": PASSWORD, "confirmation": PASSWORD}
    async with browser.post(setup_link, data=form) as home:
        assert home.status == 200 and "Welcome, Admin" in await home.text()
        return home


async def test_the_setup_link_printed_at_first_start_opens_the_console_once(tmp_path):
    server = await service.start(SIGNSVC_DATABASE_URL=f"sqlite:///{tmp_path}/signsvc.sqlite3")
    try:
        assert server.setup_link and server.setup_link.startswith(f"{server.site}/console/setup/")
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as browser:  # cookies of an IP host
            home = await set_password(browser, server.setup_link)
            assert str(home.url) == f"{server.site}/console?done=password_set"
            async with browser.get(server.setup_link) as again:
                assert again.status == 410
        async with aiohttp.ClientSession() as other_browser, other_browser.get(f"{server.site}/console") as page:
            assert page.url.path == "/console/sign-in"
    finally:
        await server.stop()

    restarted = await service.start(SIGNSVC_DATABASE_URL=f"sqlite:///{tmp_path}/signsvc.sqlite3")
    try:
        assert restarted.setup_link is None
    finally:
        await restarted.stop()


@pytest.mark.skipif(not POSTGRES_URL, reason=NO_POSTGRES)
@pytest.mark.parametrize("backend", [b for b in BACKENDS if b != "sqlite"], indirect=True)
async def test_a_console_session_begun_on_one_process_works_on_another_and_signing_out_ends_it_on_both(
    database_url, tmp_path
):
    """Several processes behind a proxy share one Postgres: the secret key (kept in the database) opens the
    session cookie in each, and signing out on one ends the session on all."""
    env = {"SIGNSVC_DATABASE_URL": database_url, "SIGNSVC_DATA_DIR": str(tmp_path / "data")}
    first = await service.start(**env)
    second = await service.start(**env)
    try:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as browser:
            await set_password(browser, first.setup_link)
            cookie = browser.cookie_jar.filter_cookies(URL(first.site + "/console"))["signsvc_console"].value
            async with browser.get(
                f"{second.site}/console", headers={"Cookie": f"signsvc_console={cookie}"}, allow_redirects=False
            ) as page:
                assert page.status == 200 and "Welcome, Admin" in await page.text()
            async with browser.get(f"{first.site}/console") as home:
                csrf = re.search(r'name="csrf" value="([^"]+)"', await home.text()).group(1)
            async with browser.post(f"{first.site}/console/sign-out", data={"csrf": csrf}) as signed_out:
                assert signed_out.url.path == "/console/sign-in"
            async with browser.get(
                f"{second.site}/console", headers={"Cookie": f"signsvc_console={cookie}"}, allow_redirects=False
            ) as page:
                assert page.status == 303
    finally:
        await asyncio.gather(first.stop(), second.stop())
