"""Signing in and out of the console, the one-time links that set a password (setup, reset), and the
switch between live and test mode. Plain HTML forms: they work without script."""

from __future__ import annotations

from aiohttp import web

from signsvc.accounts import passwords
from signsvc.accounts.console_users import LockedOut, PasswordRefused, SignInRefused
from signsvc.accounts.user_links import RESET, SETUP, LinkUnusable
from signsvc.http.appkeys import CONSOLE_USERS, SESSIONS
from signsvc.http.middleware import client_address
from signsvc.http.web import catalogue, notices
from signsvc.http.web.console import shell
from signsvc.http.web.console.session import Session
from storage.records import User

HOME = "/console"
TITLES = {SETUP: "console.password.setup.title", RESET: "console.password.reset.title"}
MISMATCH = "mismatch"
PASSWORD_PROBLEMS = {
    passwords.TOO_SHORT: "console.password.too_short",
    passwords.TOO_LONG: "console.password.too_long",
    MISMATCH: "console.password.mismatch",
}


async def home(request: web.Request) -> web.Response:
    """The first page after signing in: what to do next."""
    console = await shell.signed_in(request)
    return shell.render(request, "console/home.html", console.session, console=console)


async def sign_in_page(request: web.Request) -> web.Response:
    session = request.app[SESSIONS].read(request)
    if session.user_id is not None and await _still_valid(request, session):
        raise web.HTTPSeeOther(_next(request.query.get("next")))
    return _sign_in_form(request, session, next_path=request.query.get("next"))


async def sign_in(request: web.Request) -> web.Response:
    sessions = request.app[SESSIONS]
    session = sessions.read(request)
    form = await shell.posted(request, session)
    email, password, next_path = (str(form.get(key, "")) for key in ("email", "password", "next"))
    try:
        user = await request.app[CONSOLE_USERS].sign_in(email, password, client=client_address(request))
    except LockedOut as locked:
        minutes = -(-locked.retry_after // 60)
        response = _sign_in_form(
            request,
            session,
            email=email,
            next_path=next_path,
            status=429,
            problem=("console.sign_in.locked", {"minutes": minutes}),
        )
        response.headers["Retry-After"] = str(locked.retry_after)
        return response
    except SignInRefused:
        return _sign_in_form(
            request, session, email=email, next_path=next_path, status=401, problem=("console.sign_in.refused", {})
        )
    response = web.HTTPSeeOther(_next(next_path))
    sessions.keep(response, _session_of(request, session, user))
    raise response


async def sign_out(request: web.Request) -> web.Response:
    sessions = request.app[SESSIONS]
    session = sessions.read(request)
    await shell.posted(request, session)
    if session.user_id is not None:
        await request.app[CONSOLE_USERS].sign_out(session.user_id)
    response = web.HTTPSeeOther(f"{shell.SIGN_IN}?done=signed_out")
    sessions.keep(response, sessions.signed_out())
    raise response


async def switch_mode(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    form = await shell.posted(request, console.session)
    response = web.HTTPSeeOther(_next(str(form.get("next", ""))))
    request.app[SESSIONS].keep(response, console.session.with_test_mode(form.get("test_mode") == "on"))
    raise response


async def link_page(request: web.Request) -> web.Response:
    """GET /console/setup/{token}, /console/reset/{token}: the form that sets the password."""
    session = request.app[SESSIONS].read(request)
    try:
        user = await request.app[CONSOLE_USERS].open_link(request.match_info["token"], _purpose(request))
    except LinkUnusable as unusable:
        return _unusable(request, session, unusable)
    return shell.render(
        request, "console/password.html", session, title_key=TITLES[_purpose(request)], email=user.email
    )


async def set_password(request: web.Request) -> web.Response:
    """POST of a setup or reset link: the password set, the user signed in."""
    sessions = request.app[SESSIONS]
    session = sessions.read(request)
    form = await shell.posted(request, session)
    users, purpose, token = request.app[CONSOLE_USERS], _purpose(request), request.match_info["token"]
    password = str(form.get("password", ""))
    try:
        user = await users.open_link(token, purpose)
        if password != str(form.get("confirmation", "")):
            raise PasswordRefused(MISMATCH)
        user = await users.set_password(token, purpose, password)
    except LinkUnusable as unusable:
        return _unusable(request, session, unusable)
    except PasswordRefused as refused:
        return shell.render(
            request,
            "console/password.html",
            session,
            status=422,
            title_key=TITLES[purpose],
            email=user.email,
            problem=PASSWORD_PROBLEMS[refused.problem],
        )
    response = web.HTTPSeeOther(f"{HOME}?done=password_set")
    sessions.keep(response, _session_of(request, session, user))
    raise response


async def reset_page(request: web.Request) -> web.Response:
    return shell.render(request, "console/reset.html", request.app[SESSIONS].read(request))


async def request_reset(request: web.Request) -> web.Response:
    session = request.app[SESSIONS].read(request)
    form = await shell.posted(request, session)
    try:
        await request.app[CONSOLE_USERS].request_reset(
            str(form.get("email", "")), client=client_address(request), language=catalogue.language(request)
        )
    except LockedOut as locked:
        response = shell.render(
            request,
            "console/reset.html",
            session,
            status=429,
            problem=("console.sign_in.locked", {"minutes": -(-locked.retry_after // 60)}),
        )
        response.headers["Retry-After"] = str(locked.retry_after)
        return response
    return shell.render(
        request,
        "console/message.html",
        session,
        # Without an SMTP server the link stays in the outbox, sealed: asking again would not help.
        title_key="console.reset.kept.title" if notices.mail_kept(request.app) else "console.reset.sent.title",
        body_key="console.reset.kept.body" if notices.mail_kept(request.app) else "console.reset.sent.body",
    )


def _sign_in_form(
    request: web.Request,
    session: Session,
    *,
    next_path: str | None,
    email: str = "",
    status: int = 200,
    problem: tuple[str, dict[str, int]] | None = None,
) -> web.Response:
    return shell.render(
        request, "console/sign_in.html", session, status=status, email=email, problem=problem, next=_next(next_path)
    )


def _unusable(request: web.Request, session: Session, unusable: LinkUnusable) -> web.Response:
    return shell.render(
        request,
        "console/message.html",
        session,
        status=410,
        title_key=f"console.link.{unusable.reason}.title",
        body_key=f"console.link.{unusable.reason}.body",
        reset_link=True,
    )


async def _still_valid(request: web.Request, session: Session) -> bool:
    users = request.app[CONSOLE_USERS]
    return await users.session_user(session.user_id or 0, session.password_mark, session.epoch) is not None


def _session_of(request: web.Request, session: Session, user: User) -> Session:
    """A new session of the user who just signed in."""
    sessions = request.app[SESSIONS]
    return session.signed_in(
        user.id, request.app[CONSOLE_USERS].password_mark(user), user.session_epoch, sessions.now()
    )


def _purpose(request: web.Request) -> str:
    return SETUP if request.path.startswith(f"{HOME}/{SETUP}/") else RESET


def _next(path: str | None) -> str:
    """Where to go after signing in: a console path of this site, never another site's."""
    if path and path.startswith(HOME) and not path.startswith("//") and "\\" not in path:
        return path
    return HOME
