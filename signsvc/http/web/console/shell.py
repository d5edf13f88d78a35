"""What every console page shares: who is signed in and the account they act on (the live account, or
its test account in test mode), the checked reading of a posted form, and rendering a page in the
console's frame with the session cookie kept.

Console handlers act through the same domain objects as the API, with a principal made from the signed-in
user: one set of rules for both. A console session never authenticates /api requests (the API reads only
X-Auth-Token), and an API key never opens the console (it reads only its cookie).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from aiohttp import web
from aiohttp.typedefs import Handler
from multidict import MultiDictProxy

from signsvc.accounts import auth
from signsvc.http.appkeys import CONSOLE_USERS, SESSIONS
from signsvc.http.body_budget import RETRY_AFTER_SECONDS, Busy
from signsvc.http.web import catalogue, notices, rendering
from signsvc.http.web.console.session import CSRF_FIELD, CSRF_HEADER, Session
from signsvc.infra import errors
from storage.account_records import Account, KeyMode, Principal, User

SIGN_IN = "/console/sign-in"
FORM_TYPE = "application/x-www-form-urlencoded"
FORM_LIMIT = 64 * 1024  # far above what the console's forms hold but an upload
KEPT = web.RequestKey("console_session", Session)  # the session a console page keeps: set by `render`
UNREADABLE = {415: "console.unreadable.type", 413: "console.unreadable.size", 400: "console.unreadable.text"}


@dataclass(frozen=True)
class Console:
    """A signed-in request: the session, its user, their live account and the principal acting now."""

    session: Session
    user: User
    account: Account
    principal: Principal

    @property
    def test_mode(self) -> bool:
        return self.session.test_mode


class CsrfRefused(Exception):
    """A post without this session's CSRF token: made by another site, or a form from an ended session."""


async def signed_in(request: web.Request) -> Console:
    """The signed-in user's console; a GET without one is sent to the sign-in page (and back after it),
    anything else is refused with 401."""
    session = request.app[SESSIONS].read(request)
    users = request.app[CONSOLE_USERS]
    user = await users.session_user(session.user_id, session.password_mark, session.epoch) if session.user_id else None
    if user is None:
        if request.content_type == "application/json":
            raise errors.NotAuthenticated("Your console session ended: sign in again")
        raise web.HTTPSeeOther(
            f"{SIGN_IN}?next={quote(request.path_qs, safe='/')}" if request.method == "GET" else SIGN_IN
        )
    account = await users.account(user)
    mode = KeyMode.TEST if session.test_mode else KeyMode.LIVE
    return Console(session, user, account, auth.console_principal(account, user, mode))


class FormUnreadable(Exception):
    """A post that is no form of ours: 415 (another kind of body), 413 (too large), 400 (text that is not
    UTF-8, or holds a NUL character no database keeps)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


async def posted(request: web.Request, session: Session) -> MultiDictProxy[Any]:
    """The posted form once its CSRF token (the form's field or the X-CSRF-Token header) is the session's;
    CsrfRefused otherwise. A URL-encoded form is read up to 64 KiB; a multipart one (an upload) only from a
    signed-in session, up to the body limit."""
    multipart = request.content_type == "multipart/form-data" and session.user_id is not None
    if request.content_type != FORM_TYPE and not multipart:
        raise FormUnreadable(415)
    try:
        form = await (request.post() if multipart else request.clone(client_max_size=FORM_LIMIT).post())
    except web.HTTPRequestEntityTooLarge:
        raise FormUnreadable(413) from None
    except ValueError:  # text that is not UTF-8
        raise FormUnreadable(400) from None
    if any(isinstance(value, str) and "\x00" in value for value in form.values()):
        raise FormUnreadable(400)
    if not session.accepts(request.headers.get(CSRF_HEADER) or _text(form.get(CSRF_FIELD))):
        raise CsrfRefused()
    return form


def check_header(request: web.Request, session: Session) -> None:
    """For JSON posts of the console's scripts: the X-CSRF-Token header must be the session's."""
    if not session.accepts(request.headers.get(CSRF_HEADER)):
        raise CsrfRefused()


def render(
    request: web.Request,
    template: str,
    session: Session,
    *,
    console: Console | None = None,
    status: int = 200,
    **context: Any,
) -> web.Response:
    """A console page (`console/*.html`) with the session kept; `console` for pages of a signed-in user."""
    request[KEPT] = session
    response = rendering.render(request, template, status=status, console=console, **context)
    request.app[SESSIONS].keep(response, session)
    return response


def context(request: web.Request) -> dict[str, Any]:
    """Context processor: on a console page, the `csrf` token of the session it keeps (and its field's name),
    the page's `path` and the notice of what was done (`done`, with the outbox's link when it says an email was
    kept)."""
    session = request.get(KEPT)
    if session is None:
        return {}
    done_key = notices.done_key(request.app, request.query.get("done", ""))
    done = done_key if done_key in catalogue.strings(catalogue.language(request)) else None
    return {
        "csrf": session.csrf,
        "csrf_field": CSRF_FIELD,
        "path": request.path,
        "done": done,
        "done_outbox": notices.OUTBOX_PAGE if notices.links_outbox(done) else None,
    }


def done(path: str, what: str) -> web.HTTPSeeOther:
    """The redirect after a successful post: back to a page that says what was done."""
    return web.HTTPSeeOther(f"{path}{'&' if '?' in path else '?'}done={what}")


def refused(request: web.Request, session: Session) -> web.Response:
    """The page for a post without the session's CSRF token."""
    return render(
        request,
        "console/message.html",
        session,
        status=403,
        title_key="console.csrf.title",
        body_key="console.csrf.body",
    )


@web.middleware
async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Console pages: a post without the CSRF token, a body that is no form of ours, an upload while the body
    budget is taken each get a page that says so; a record that is not there (or not the account's), the
    not-found page."""
    if not request.path.startswith("/console"):
        return await handler(request)
    try:
        return await handler(request)
    except CsrfRefused:
        return refused(request, request.app[SESSIONS].read(request))
    except Busy:
        response = render(
            request,
            "console/message.html",
            request.app[SESSIONS].read(request),
            status=503,
            title_key="console.busy.title",
            body_key="console.busy.body",
        )
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    except FormUnreadable as unreadable:
        return render(
            request,
            "console/message.html",
            request.app[SESSIONS].read(request),
            status=unreadable.status,
            title_key="console.unreadable.title",
            body_key=UNREADABLE[unreadable.status],
        )
    except (errors.NotFound, errors.NotAuthorized):
        return rendering.not_found(request)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
