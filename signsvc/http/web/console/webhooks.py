"""The console's webhooks pages: the endpoints of the account the console acts on (live, or test in test
mode), each with its delivery log, resend and the test webhook. Plain HTML forms through the same
`WebhookEndpoints` and `Deliverer` as `/api/webhooks`, so their rules and messages are the API's."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from signsvc.http.appkeys import DELIVERER, WEBHOOKS
from signsvc.http.params import record_id
from signsvc.http.web.console import confirm, newest_first, shell
from signsvc.http.web.console.badges import Badge
from signsvc.http.web.console.forms import Refusal, by_key
from signsvc.http.web.console.paths import ID, path_id
from signsvc.http.web.console.shell import Console
from signsvc.http.web.console.webhook_form import INPUTS, Entered
from signsvc.infra import errors
from signsvc.webhooks.answers import Changed
from signsvc.webhooks.endpoints import EVENT_TYPES, MAX_ENDPOINTS
from storage.outbound_records import DeliveryStatus, WebhookEndpoint

HOME = "/console/webhooks"
LOG_PAGE = 10
# What each event type means, beside its checkbox (keyed without the dot: the catalogue's check reads
# every dotted word in quotes as a key of its own).
EVENT_HINTS = {
    "form_viewed": "console.webhooks.event.form_viewed",
    "form_started": "console.webhooks.event.form_started",
    "form_completed": "console.webhooks.event.form_completed",
    "form_declined": "console.webhooks.event.form_declined",
    "submission_created": "console.webhooks.event.submission_created",
    "submission_completed": "console.webhooks.event.submission_completed",
    "submission_expired": "console.webhooks.event.submission_expired",
    "submission_archived": "console.webhooks.event.submission_archived",
    "template_created": "console.webhooks.event.template_created",
    "template_updated": "console.webhooks.event.template_updated",
    "consent_created": "console.webhooks.event.consent_created",
}
STATUSES = {
    "pending": Badge("console.webhooks.status.pending", "wait"),
    "delivered": Badge("console.webhooks.status.delivered", "good"),
    "failed": Badge("console.webhooks.status.failed", "bad"),
}


async def index(request: web.Request) -> web.Response:
    """GET /console/webhooks: the account's endpoints, with how the latest delivery to each went."""
    console = await shell.signed_in(request)
    endpoints, account_id = request.app[WEBHOOKS], console.principal.account_id
    after = newest_first.after(request)
    found = await endpoints.page(account_id, limit=MAX_ENDPOINTS + 1, after=after)
    return shell.render(
        request,
        "console/webhooks.html",
        console.session,
        console=console,
        listing=newest_first.listing(found, MAX_ENDPOINTS, after),
        latest=await endpoints.latest_deliveries(account_id),
        statuses=STATUSES,
    )


async def new(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    return _form(request, console, Entered())


async def create(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    entered = Entered.posted(await shell.posted(request, console.session))
    try:
        changed = await request.app[WEBHOOKS].create(console.principal.account_id, entered.create_body())
    except errors.Invalid as refused:
        return _form(request, console, entered, refused=refused)
    return await _saved(request, console, changed, entered, "webhook_created")


async def show(request: web.Request) -> web.Response:
    """GET /console/webhooks/{id}: the endpoint and its delivery log (`?status=`, `?after=`)."""
    console = await shell.signed_in(request)
    return await _endpoint_page(request, console, record_id(request))


async def edit(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    endpoint = await request.app[WEBHOOKS].find(console.principal, record_id(request))
    return _form(request, console, Entered.of(endpoint), endpoint=endpoint)


async def update(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    form = await shell.posted(request, console.session)
    endpoints = request.app[WEBHOOKS]
    endpoint = await endpoints.find(console.principal, record_id(request))
    entered = Entered.posted(form)
    try:
        changed = await endpoints.update(console.principal, endpoint.id, entered.update_body(endpoint))
    except errors.Invalid as refused:
        return _form(request, console, entered, endpoint=endpoint, refused=refused)
    return await _saved(request, console, changed, entered, "webhook_updated")


async def confirm_delete(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    endpoint = await request.app[WEBHOOKS].find(console.principal, record_id(request))
    return confirm.page(request, console, _deletion(endpoint))


async def delete(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    form = await shell.posted(request, console.session)
    endpoint = await request.app[WEBHOOKS].find(console.principal, record_id(request))
    if again := confirm.unticked(request, console, _deletion(endpoint), form):
        return again
    await request.app[WEBHOOKS].delete(console.principal, endpoint.id)
    raise shell.done(HOME, "webhook_deleted")


async def test(request: web.Request) -> web.Response:
    """POST /console/webhooks/{id}/test: sends the test webhook now and shows how the endpoint took it."""
    console = await shell.signed_in(request)
    await shell.posted(request, console.session)
    endpoint = await request.app[WEBHOOKS].find(console.principal, record_id(request))
    try:
        outcome = await request.app[DELIVERER].test(endpoint)
    except errors.Invalid as refused:
        return await _endpoint_page(request, console, endpoint.id, status=422, test_refused=refused.message)
    return await _endpoint_page(request, console, endpoint.id, outcome=outcome)


async def tested(request: web.Request) -> web.Response:
    """GET /console/webhooks/{id}/test (the page the test's answer was rendered at, reloaded or reached again
    by switching modes): the endpoint's page."""
    raise web.HTTPSeeOther(f"{HOME}/{record_id(request)}")


async def resend(request: web.Request) -> web.Response:
    console = await shell.signed_in(request)
    await shell.posted(request, console.session)
    endpoint_id = record_id(request)
    await request.app[WEBHOOKS].resend(console.principal, endpoint_id, record_id(request, "delivery_id"))
    raise shell.done(f"{HOME}/{endpoint_id}", "webhook_resent")


async def _saved(request: web.Request, console: Console, changed: Changed, entered: Entered, what: str) -> web.Response:
    """After a save: the endpoint's page; with a secret just set, that page shows its value this once (it is
    never shown again), so it is rendered for this answer rather than reached by a redirect."""
    if not entered.sets_secret:
        raise shell.done(f"{HOME}/{changed.endpoint.id}", what)
    return await _endpoint_page(
        request,
        console,
        changed.endpoint.id,
        saved=f"console.done.{what}",
        secret_value=entered.secret_value,
        warnings=changed.warnings,
    )


async def _endpoint_page(
    request: web.Request, console: Console, endpoint_id: int, *, status: int = 200, **shown: Any
) -> web.Response:
    endpoints = request.app[WEBHOOKS]
    endpoint = await endpoints.find(console.principal, endpoint_id)
    chosen = request.query.get("status", "")
    only = DeliveryStatus(chosen) if chosen in STATUSES else None
    after = newest_first.after(request)
    found = await endpoints.deliveries(console.principal, endpoint.id, status=only, limit=LOG_PAGE + 1, after=after)
    return shell.render(
        request,
        "console/webhooks_endpoint.html",
        console.session,
        console=console,
        status=status,
        endpoint=endpoint,
        log=newest_first.listing(found, LOG_PAGE, after),
        only=only,
        statuses=STATUSES,
        **shown,
    )


def _form(
    request: web.Request,
    console: Console,
    entered: Entered,
    *,
    endpoint: WebhookEndpoint | None = None,
    refused: errors.Invalid | None = None,
) -> web.Response:
    """The form to add an endpoint, or to change `endpoint`; after a refusal its message beside its input."""
    return shell.render(
        request,
        "console/webhooks_form.html",
        console.session,
        console=console,
        status=422 if refused else 200,
        entered=entered,
        endpoint=endpoint,
        event_types=[(event_type, EVENT_HINTS[event_type.replace(".", "_")]) for event_type in EVENT_TYPES],
        refused=Refusal.of(refused, by_key(INPUTS)) if refused else None,
    )


def _deletion(endpoint: WebhookEndpoint) -> confirm.Step:
    """Deleting cannot be undone: the endpoint's delivery log goes with it."""
    return confirm.Step(
        title="console.webhooks.delete_page.title",
        body="console.webhooks.delete_page.body",
        subject=endpoint.url,
        check="console.webhooks.delete_page.check",
        submit="console.webhooks.delete_page.confirm",
        back=f"{HOME}/{endpoint.id}",
        back_label="console.webhooks.delete_page.keep",
    )


ROUTES: list[web.RouteDef] = [
    web.get(HOME, index),
    web.post(HOME, create),
    web.get(f"{HOME}/new", new),
    web.get(f"{HOME}/{ID}", show),
    web.post(f"{HOME}/{ID}", update),
    web.get(f"{HOME}/{ID}/edit", edit),
    web.get(f"{HOME}/{ID}/delete", confirm_delete),
    web.post(f"{HOME}/{ID}/delete", delete),
    web.get(f"{HOME}/{ID}/test", tested),
    web.post(f"{HOME}/{ID}/test", test),
    web.post(f"{HOME}/{ID}/deliveries/{path_id('delivery_id')}/resend", resend),
]
