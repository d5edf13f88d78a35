"""The console's users: the account's users and their state, inviting one by email, sending an invitation again,
deactivating one after a confirmation; and for the instance administrator, every account's API access approval.
Plain HTML forms: they work without script."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from signsvc.http.appkeys import ACCOUNTS, CONSOLE_USERS
from signsvc.http.web.console import shell
from signsvc.infra import errors
from storage.records import User

PAGE = "/console/users"
PAGE_SIZE = 50
CONFIRMED = "yes"


async def page(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    return await _users_page(request, console)


async def invite(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    form = await shell.posted(request, console.session)
    invited = {name: str(form.get(name, "")).strip() for name in ("email", "first_name", "last_name")}
    try:
        await request.app[CONSOLE_USERS].invite(console.user, email=invited["email"],
                                                first_name=invited["first_name"] or None,
                                                last_name=invited["last_name"] or None)
    except errors.Invalid as invalid:
        return await _users_page(request, console, status=422, invited=invited, invite_problem=invalid.message)
    raise shell.done(PAGE, "user_invited")


async def resend(request: web.Request) -> web.Response:
    """A new invitation email for a user who has not set a password yet."""
    console = await shell.signed_in(request)
    await shell.posted(request, console.session)
    try:
        await request.app[CONSOLE_USERS].resend_invitation(console.user, _user_id(request))
    except errors.Invalid as invalid:
        return await _users_page(request, console, status=422, problem=invalid.message)
    raise shell.done(PAGE, "invitation_sent")


async def deactivate_page(request: web.Request) -> web.Response:
    """The confirmation step before a user is deactivated."""
    console = await shell.signed_in(request)
    user = await request.app[CONSOLE_USERS].colleague(console.user, _user_id(request))
    return _confirmation(request, console, user)


async def deactivate(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    form = await shell.posted(request, console.session)
    users = request.app[CONSOLE_USERS]
    if form.get("confirm") != CONFIRMED:
        user = await users.colleague(console.user, _user_id(request))
        return _confirmation(request, console, user, status=422, problem="console.users.deactivate.unconfirmed")
    try:
        await users.deactivate(console.user, _user_id(request))
    except errors.Invalid as invalid:
        user = await users.colleague(console.user, _user_id(request))
        return _confirmation(request, console, user, status=422, problem_text=invalid.message)
    raise shell.done(PAGE, "user_deactivated")


async def set_api_access(request: web.Request) -> web.Response:
    """The instance administrator approves or revokes an account's API access; not there for anyone else."""
    console = await shell.signed_in(request)
    form = await shell.posted(request, console.session)
    approved = form.get("approved") == "on"
    await request.app[CONSOLE_USERS].set_api_access(console.user, int(request.match_info["id"]), approved)
    raise shell.done(PAGE, "api_access_approved" if approved else "api_access_revoked")


async def _users_page(request: web.Request, console: shell.Console, *, status: int = 200,
                      **context: Any) -> web.Response:
    after = _after(request)
    found = await request.app[ACCOUNTS].list_users(console.account.id, limit=PAGE_SIZE + 1, after=after)
    users = found[:PAGE_SIZE]
    accounts = await request.app[CONSOLE_USERS].live_accounts(console.user) if console.user.is_admin else []
    return shell.render(request, "console/users.html", console.session, console=console, status=status,
                        users=users, older=users[-1].id if len(found) > PAGE_SIZE else None, newest=after is not None,
                        accounts=accounts, **{"invited": {}, **context})


def _confirmation(request: web.Request, console: shell.Console, user: User, *, status: int = 200,
                  problem: str | None = None, problem_text: str | None = None) -> web.Response:
    return shell.render(request, "console/users_deactivate.html", console.session, console=console, status=status,
                        user=user, problem=problem, problem_text=problem_text, confirmed=CONFIRMED)


def _user_id(request: web.Request) -> int:
    return int(request.match_info["id"])


def _after(request: web.Request) -> int | None:
    after = request.query.get("after", "")
    return int(after) if after.isdigit() and len(after) <= 18 else None


ROUTES: list[web.RouteDef] = [
    web.get(PAGE, page),
    web.post(PAGE + "/invite", invite),
    web.post(PAGE + r"/{id:\d{1,18}}/invitation", resend),
    web.get(PAGE + r"/{id:\d{1,18}}/deactivate", deactivate_page),
    web.post(PAGE + r"/{id:\d{1,18}}/deactivate", deactivate),
    web.post(PAGE + r"/accounts/{id:\d{1,18}}/api-access", set_api_access),
]
