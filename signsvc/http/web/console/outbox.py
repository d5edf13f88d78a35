"""The console's outbox pages: the emails the service sent, or kept without an SMTP server, for the account
the console acts on (live, or test in test mode), and each email's text.

An email's HTML is never put into a console page: it is served as a document of its own that the email's
page frames, sandboxed (no script, no form, an origin of its own) under a policy that loads nothing."""

from __future__ import annotations

from aiohttp import web

from signsvc.accounts.user_links import SEALED_EMAIL_KINDS
from signsvc.http.appkeys import OUTBOX
from signsvc.http.params import record_id
from signsvc.http.web.console import newest_first, shell
from signsvc.http.web.console.badges import Badge
from signsvc.http.web.console.paths import ID
from signsvc.infra import errors
from signsvc.infra.mail import Status

HOME = "/console/outbox"
PAGE = 20
STATUSES = {
    Status.PENDING: Badge("console.outbox.status.pending", "wait"),
    Status.SENT: Badge("console.outbox.status.sent", "good"),
    Status.KEPT: Badge("console.outbox.status.kept"),
    Status.FAILED: Badge("console.outbox.status.failed", "bad"),
}
KINDS = {
    "invitation": "console.outbox.kind.invitation",
    "completed_copy": "console.outbox.kind.completed_copy",
    "consent_certificate": "console.outbox.kind.consent_certificate",
    "console_setup": "console.outbox.kind.console_setup",
    "console_reset": "console.outbox.kind.console_reset",
    "verification_code": "console.outbox.kind.verification_code",
}
# A console user's setup or reset link works once and signs in as that user: only its recipient may read it,
# not every user of the account; the console shows it to no one.
SEALED_KINDS = SEALED_EMAIL_KINDS
# The email's own document: its inline styles and pictures written into it, nothing else; a sandbox with an
# origin of its own and no script, forms or navigation of the console; framed by the console only.
HTML_HEADERS = {
    "Content-Security-Policy": "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "form-action 'none'; base-uri 'none'; frame-ancestors 'self'",
    "X-Frame-Options": "SAMEORIGIN",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "private, no-store",
}


async def index(request: web.Request) -> web.Response:
    """GET /console/outbox (`?status=`, `?after=`): the account's emails, newest first."""
    console = await shell.signed_in(request)
    chosen = request.query.get("status", "")
    only = Status(chosen) if chosen in STATUSES else None
    after = newest_first.after(request)
    found = await request.app[OUTBOX].page(console.principal.account_id, status=only, limit=PAGE + 1, after=after)
    return shell.render(
        request,
        "console/outbox.html",
        console.session,
        console=console,
        listing=newest_first.listing(found, PAGE, after),
        only=only,
        statuses=STATUSES,
        kinds=KINDS,
    )


async def show(request: web.Request) -> web.Response:
    """GET /console/outbox/{id}: one email, its text and (framed) its HTML version."""
    console = await shell.signed_in(request)
    email = await request.app[OUTBOX].find(console.principal.account_id, record_id(request))
    response = shell.render(
        request,
        "console/outbox_email.html",
        console.session,
        console=console,
        email=email,
        sealed=email.kind in SEALED_KINDS,
        statuses=STATUSES,
        kinds=KINDS,
    )
    # The page frames the email's HTML document (this site's, sandboxed), and nothing else.
    response.headers["Content-Security-Policy"] += "; frame-src 'self'"
    return response


async def html(request: web.Request) -> web.Response:
    """GET /console/outbox/{id}/html: the email's HTML version, for its page's frame only."""
    console = await shell.signed_in(request)
    email = await request.app[OUTBOX].find(console.principal.account_id, record_id(request))
    if email.kind in SEALED_KINDS:
        raise errors.NotFound(f"Email {email.id} not found")
    return web.Response(text=email.html_body, content_type="text/html", headers=HTML_HEADERS)


ROUTES: list[web.RouteDef] = [
    web.get(HOME, index),
    web.get(f"{HOME}/{ID}", show),
    web.get(f"{HOME}/{ID}/html", html),
]
