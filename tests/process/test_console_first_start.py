"""A self-hoster's first minute: `python run.py` prints a setup link; in a browser (here an HTTP client with
a cookie jar, over a real socket) it sets the first user's password and opens the console."""

import re

import aiohttp

from tests.support import service

PASSWORD = "correct horse battery staple"


async def test_the_setup_link_printed_at_first_start_opens_the_console_once(tmp_path):
    server = await service.start(SIGNSVC_DATABASE_URL=f"sqlite:///{tmp_path}/signsvc.sqlite3")
    try:
        assert server.setup_link and server.setup_link.startswith(f"{server.site}/console/setup/")
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as browser:  # cookies of an IP host
            async with browser.get(server.setup_link) as page:
                csrf = re.search(r'name="csrf" value="([^"]+)"', await page.text()).group(1)
            form = {"csrf": csrf, "password": PASSWORD, "confirmation": PASSWORD}
            async with browser.post(server.setup_link, data=form) as home:
                assert home.status == 200 and str(home.url) == f"{server.site}/console?done=password_set"
                assert "Welcome, Admin" in await home.text()
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
