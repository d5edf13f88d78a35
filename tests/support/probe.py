"""Test-only routes under /api/probe/ that exercise shared API machinery before any resource uses it.

They are built from the real pieces (pagination, JSON bodies, ownership checks, stored users),
so the rules those pieces implement can be tested over HTTP now; resources added later get the
same behaviour by construction.
"""

from __future__ import annotations

import asyncio

from aiohttp import web

import storage.accounts as stored
from signsvc.accounts import auth
from signsvc.http.appkeys import DB
from signsvc.http.middleware import principal
from signsvc.http.pagination import Page, paginated
from signsvc.http.params import Query, read_json
from signsvc.http.responses import json_response
from signsvc.wire.encoding import iso

STARTED = web.AppKey("probe_started", asyncio.Event)
RELEASE = web.AppKey("probe_release", asyncio.Event)


def _user(user: stored.User) -> dict:
    return {"id": user.id, "email": user.email, "created_at": iso(user.created_at)}


async def list_users(request: web.Request) -> web.Response:
    page = Page.from_query(Query(request))
    users = await stored.list_users(
        request.app[DB], principal(request).account_id, limit=page.limit, after=page.after, before=page.before
    )
    return json_response(paginated(users, _user))


async def show_user(request: web.Request) -> web.Response:
    user = await stored.get_user(request.app[DB], int(request.match_info["id"]))
    return json_response(_user(auth.owned(principal(request), user, "User")))


async def echo(request: web.Request) -> web.Response:
    return json_response({"received": await read_json(request), "flag": Query(request).boolean("flag")})


async def slow(request: web.Request) -> web.Response:
    """Answers once the test sets the app's `release` event: a request still under way."""
    request.app[STARTED].set()
    await request.app[RELEASE].wait()
    return json_response({"finished": True})


def add_routes(app: web.Application) -> None:
    app.router.add_get("/api/probe/users", list_users)
    app.router.add_get(r"/api/probe/users/{id:\d+}", show_user)
    app.router.add_post("/api/probe/echo", echo)
    app.router.add_get("/api/probe/slow", slow)
    app[STARTED], app[RELEASE] = asyncio.Event(), asyncio.Event()
