"""The console as a browser without script uses it, over HTTP: each `Console` is a browser of its own (it keeps
its own cookies, so a test can have several), each page's CSRF token is read from its forms and posted back
with the next form."""

from __future__ import annotations

import re
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urljoin, urlsplit

from signsvc.accounts.accounts import DEFAULT_EMAIL
from signsvc.http.appkeys import CONSOLE_USERS
from tests.support.app import Api, Reply

PASSWORD = "correct horse battery staple"
_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


class Console:
    """One browser on the console: `get` a page, `post` a form (with the CSRF token of the last page read)."""

    def __init__(self, api: Api) -> None:
        self.http = api.with_key(None)
        self.app = api.app
        self.csrf: str | None = None
        self.cookies: dict[str, str] = {}

    async def request(
        self,
        method: str,
        path: str,
        *,
        allow_redirects: bool = False,
        headers: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> Reply:
        """One request with this browser's cookies, keeping the cookies it sets; redirects followed as a
        browser does (a GET after a 303) when asked."""
        for _ in range(10):
            self.http.client.session.cookie_jar.clear()  # the test client's jar is shared; ours is not
            cookie = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
            sent = {**(headers or {}), **({"Cookie": cookie} if cookie else {})}
            reply = await self.http.request(method, path, headers=sent, allow_redirects=False, **kwargs)
            self.http.client.session.cookie_jar.clear()
            for header in reply.headers.getall("Set-Cookie", []):
                for name, morsel in SimpleCookie(header).items():
                    self.cookies[name] = morsel.value
            if not (allow_redirects and reply.status in (301, 302, 303, 307, 308)):
                break
            method, path, kwargs = "GET", urljoin(path, reply.headers["Location"]), {}
        if found := _CSRF.search(reply.body.decode(errors="replace")):
            self.csrf = found.group(1)
        return reply

    async def get(self, path: str, *, allow_redirects: bool = True, **kwargs: Any) -> Reply:
        return await self.request(
            "GET",
            path,
            allow_redirects=allow_redirects,
            headers={"Accept": "text/html", **kwargs.pop("headers", {})},
            **kwargs,
        )

    async def post(
        self,
        path: str,
        form: dict[str, Any] | None = None,
        *,
        csrf: bool = True,
        allow_redirects: bool = False,
        **kwargs: Any,
    ) -> Reply:
        """Posts the form (with the last page's CSRF token unless `csrf=False`); redirects are not followed
        unless asked, so a test sees where a post sends the browser (`location`)."""
        data = dict(form or {})
        if csrf and "csrf" not in data:
            data["csrf"] = self.csrf or ""
        return await self.request("POST", path, data=data, allow_redirects=allow_redirects, **kwargs)

    async def post_json(self, path: str, body: Any, *, csrf: bool = True) -> Reply:
        """A JSON post as the console's scripts make it: the CSRF token in the X-CSRF-Token header."""
        return await self.request("POST", path, json=body, headers={"X-CSRF-Token": self.csrf or ""} if csrf else {})

    async def setup_link(self, email: str = DEFAULT_EMAIL) -> str:
        """A new setup link of the user, as `python run.py users setup-link` makes it: its path."""
        users = self.app[CONSOLE_USERS]
        user = await users.find_by_email(email)
        return urlsplit(await users.links.setup_link(user.id)).path

    async def set_password(self, link_path: str, password: str = PASSWORD) -> Reply:
        await self.get(link_path)
        return await self.post(link_path, {"password": password, "confirmation": password})

    async def sign_in(self, email: str = DEFAULT_EMAIL, password: str = PASSWORD) -> Reply:
        await self.get("/console/sign-in")
        return await self.post("/console/sign-in", {"email": email, "password": password})


def location(reply: Reply) -> str:
    return reply.headers.get("Location", "")


async def signed_in(api: Api, email: str = DEFAULT_EMAIL) -> Console:
    """A browser signed in to the console as the user (the default user unless named), their password set."""
    console = Console(api)
    reply = await console.set_password(await console.setup_link(email))
    assert reply.status == 303, reply.body
    await console.get("/console")  # a page with the signed-in session's CSRF token
    return console


async def sign_in_browser(site: Api, page: Any, email: str = DEFAULT_EMAIL, password: str = PASSWORD) -> None:
    """Signs a Playwright page in to the console as a person does: the user's setup link, a new password;
    the page then shows the console's home."""
    from playwright.async_api import expect

    users = site.app[CONSOLE_USERS]
    link = await users.links.setup_link((await users.find_by_email(email)).id)
    await page.goto(link)
    await page.get_by_label("New password").fill(password)
    await page.get_by_label("Repeat the password").fill(password)
    await page.get_by_role("button", name="Save and sign in").click()
    await expect(page.get_by_role("heading", name=re.compile("^Welcome"))).to_be_visible()
