"""The console's setting of the account's extra recipients of completed documents: a plain form (it works
without script), reached from the outbox."""

from __future__ import annotations

from aiohttp import web

from signsvc.accounts import completed_recipients
from signsvc.http.appkeys import DB
from signsvc.http.web.console import forms, shell
from signsvc.infra import errors

HOME = "/console/outbox/copies"


async def page(request: web.Request) -> web.Response:
    """GET /console/outbox/copies: the addresses that get a copy of each completed submission."""
    console = await shell.signed_in(request)
    addresses = await completed_recipients.of(request.app[DB], console.principal.account_id)
    return _form(request, console, "\n".join(addresses))


async def save(request: web.Request) -> web.Response:
    """POST /console/outbox/copies: replaces the addresses (none clears them); a refused address is named."""
    console = await shell.signed_in(request)
    form = await shell.posted(request, console.session)
    entered = forms.text(form, "addresses")
    try:
        async with request.app[DB].transaction() as tx:
            await completed_recipients.set_from_text(tx, console.principal.account_id, entered)
    except errors.Invalid as invalid:
        return _form(request, console, entered, status=422, refused=forms.Refusal(invalid.message, "addresses"))
    raise shell.done(HOME, "completed_recipients_saved")


def _form(
    request: web.Request,
    console: shell.Console,
    entered: str,
    *,
    status: int = 200,
    refused: forms.Refusal | None = None,
) -> web.Response:
    return shell.render(
        request,
        "console/completed_copies.html",
        console.session,
        console=console,
        status=status,
        entered=entered,
        refused=refused,
        limit=completed_recipients.LIMIT,
    )


ROUTES: list[web.RouteDef] = [web.get(HOME, page), web.post(HOME, save)]
