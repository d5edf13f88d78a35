"""The console's users: the account's users and their state, inviting one by email, sending an invitation again,
deactivating one after a confirmation; and for the instance administrator, every account's API access approval.
Plain HTML forms: they work without script."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from signsvc.accounts.console_users import ConsoleUsers
from signsvc.http.appkeys import ACCOUNTS, CONSOLE_USERS
from signsvc.http.params import record_id
from signsvc.http.web import catalogue
from signsvc.http.web.console import confirm, forms, newest_first, shell
from signsvc.http.web.console.badges import Badge
from signsvc.http.web.console.paths import ID
from signsvc.http.web.console.people import display_name
from signsvc.infra import errors
from storage.records import User

PAGE = "/console/users"
PAGE_SIZE = 50
STATES = {
    "active": Badge("console.users.state.active", "good"),
    "invited": Badge("console.users.state.invited", "wait"),
    "deactivated": Badge("console.users.state.deactivated", "bad"),
}
ADMIN = Badge("console.users.state.admin")
ACCESS = {True: Badge("console.users.access.approved", "good"), False: Badge("console.users.access.waiting", "wait")}


async def page(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    return await _users_page(request, console)


async def invite(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    form = await shell.posted(request, console.session)
    invited = {name: forms.text(form, name) for name in ("email", "first_name", "last_name")}
    users = request.app[CONSOLE_USERS]
    try:
        await users.invite(
            console.user,
            email=invited["email"],
            first_name=invited["first_name"] or None,
            last_name=invited["last_name"] or None,
            language=catalogue.language(request),
        )
    except errors.Invalid as invalid:
        return await _users_page(
            request, console, status=422, invited=invited, refused=forms.Refusal(invalid.message, "invite-email")
        )
    raise shell.done(PAGE, "user_invited")


async def resend(request: web.Request) -> web.Response:
    """A new invitation email for a user who has not set a password yet."""
    language = catalogue.language(request)

    async def resend_invitation(users: ConsoleUsers, actor: User, user_id: int) -> User:
        return await users.resend_invitation(actor, user_id, language)

    return await _acted_on_user(request, resend_invitation, "invitation_sent")


async def deactivate_page(request: web.Request) -> web.Response:
    """The confirmation step before a user is deactivated."""
    console = await shell.signed_in(request)
    user = await request.app[CONSOLE_USERS].colleague(console.user, record_id(request))
    return confirm.page(request, console, _deactivation(user))


async def deactivate(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    form = await shell.posted(request, console.session)
    users = request.app[CONSOLE_USERS]
    step = _deactivation(await users.colleague(console.user, record_id(request)))
    if again := confirm.unticked(request, console, step, form):
        return again
    try:
        await users.deactivate(console.user, record_id(request))
    except errors.Invalid as invalid:
        return confirm.page(request, console, step, status=422, problem=invalid.message)
    raise shell.done(PAGE, "user_deactivated")


async def reactivate(request: web.Request) -> web.Response:
    return await _acted_on_user(request, ConsoleUsers.reactivate, "user_reactivated")


async def _acted_on_user(
    request: web.Request, action: Callable[[ConsoleUsers, User, int], Awaitable[User]], done: str
) -> web.Response:
    """A post that takes one action on the path's user: back to the list saying `done`, or the list with the
    domain's refusal (422)."""
    console = await shell.signed_in(request)
    await shell.posted(request, console.session)
    try:
        await action(request.app[CONSOLE_USERS], console.user, record_id(request))
    except errors.Invalid as invalid:
        return await _users_page(request, console, status=422, problem=invalid.message)
    raise shell.done(PAGE, done)


async def set_api_access(request: web.Request) -> web.Response:
    """The instance administrator approves or revokes an account's API access; not there for anyone else."""
    console = await shell.signed_in(request)
    form = await shell.posted(request, console.session)
    approved = form.get("approved") == "on"
    await request.app[CONSOLE_USERS].set_api_access(console.user, record_id(request), approved)
    raise shell.done(PAGE, "api_access_approved" if approved else "api_access_revoked")


async def to_the_list(request: web.Request) -> web.Response:
    """GET of an address forms only post to (where a refused post's page was shown: reloaded, or reached again by
    switching modes): the users page."""
    raise web.HTTPSeeOther(PAGE)


async def _users_page(
    request: web.Request, console: shell.Console, *, status: int = 200, **context: Any
) -> web.Response:
    after = newest_first.after(request)
    found = await request.app[ACCOUNTS].list_users(console.account.id, limit=PAGE_SIZE + 1, after=after)
    accounts = await request.app[CONSOLE_USERS].live_accounts(console.user) if console.user.is_admin else []
    return shell.render(
        request,
        "console/users.html",
        console.session,
        console=console,
        status=status,
        listing=newest_first.listing(found, PAGE_SIZE, after),
        accounts=accounts,
        access=ACCESS,
        badges=_badges,
        display_name=display_name,
        **{"invited": {}, **context},
    )


def _badges(user: User) -> list[Badge]:
    """The user's state, and whether they are the instance administrator."""
    state = "deactivated" if user.archived_at else "active" if user.password_hash else "invited"
    return [STATES[state], *([ADMIN] if user.is_admin else [])]


def _deactivation(user: User) -> confirm.Step:
    return confirm.Step(
        title="console.users.deactivate.title",
        values={"email": user.email},
        body="console.users.deactivate.body",
        check="console.users.deactivate.confirm",
        submit="console.users.deactivate.submit",
        back=PAGE,
        back_label="console.users.deactivate.cancel",
        instead="console.users.deactivate.already" if user.archived_at else None,
    )


ROUTES: list[web.RouteDef] = [
    web.get(PAGE, page),
    web.get(PAGE + "/invite", to_the_list),
    web.post(PAGE + "/invite", invite),
    web.get(f"{PAGE}/{ID}/invitation", to_the_list),
    web.post(f"{PAGE}/{ID}/invitation", resend),
    web.get(f"{PAGE}/{ID}/deactivate", deactivate_page),
    web.post(f"{PAGE}/{ID}/deactivate", deactivate),
    web.get(f"{PAGE}/{ID}/reactivate", to_the_list),
    web.post(f"{PAGE}/{ID}/reactivate", reactivate),
    web.post(f"{PAGE}/accounts/{ID}/api-access", set_api_access),
]
