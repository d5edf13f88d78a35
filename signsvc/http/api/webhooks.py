"""Webhook endpoint management under /api/webhooks: an extension of ours, keyed like every other call and
scoped to the key's account, live or test."""

from __future__ import annotations

from aiohttp import web

from signsvc.http.appkeys import DELIVERER, WEBHOOKS
from signsvc.http.middleware import principal
from signsvc.http.pagination import Page, paginated
from signsvc.http.params import Query, read_json, record_id
from signsvc.http.responses import json_response
from signsvc.infra import errors
from signsvc.wire import webhook_json
from storage.records import DeliveryStatus


async def index(request: web.Request) -> web.Response:
    page = Page.from_query(Query(request))
    found = await request.app[WEBHOOKS].page(
        principal(request).account_id, limit=page.limit, after=page.after, before=page.before
    )
    return json_response(paginated(found, webhook_json.endpoint_json))


async def create(request: web.Request) -> web.Response:
    body = await read_json(request)
    return json_response(
        webhook_json.changed_json(await request.app[WEBHOOKS].create(principal(request).account_id, body))
    )


async def show(request: web.Request) -> web.Response:
    endpoint = await request.app[WEBHOOKS].find(principal(request), record_id(request))
    return json_response(webhook_json.endpoint_json(endpoint))


async def update(request: web.Request) -> web.Response:
    body = await read_json(request)
    changed = await request.app[WEBHOOKS].update(principal(request), record_id(request), body)
    return json_response(webhook_json.changed_json(changed))


async def destroy(request: web.Request) -> web.Response:
    endpoint = await request.app[WEBHOOKS].delete(principal(request), record_id(request))
    return json_response(webhook_json.endpoint_json(endpoint))


async def deliveries(request: web.Request) -> web.Response:
    """The delivery log of an endpoint, newest first, each delivery with its attempts."""
    query = Query(request)
    page, status = Page.from_query(query), query.string("status")
    if status is not None and status not in {s.value for s in DeliveryStatus}:
        raise errors.Invalid(f"status must be one of: {', '.join(DeliveryStatus)}")
    found = await request.app[WEBHOOKS].deliveries(
        principal(request),
        record_id(request),
        status=DeliveryStatus(status) if status else None,
        limit=page.limit,
        after=page.after,
        before=page.before,
    )
    return json_response(paginated(found, webhook_json.delivery_json))


async def resend(request: web.Request) -> web.Response:
    delivered = await request.app[WEBHOOKS].resend(
        principal(request), record_id(request), record_id(request, "delivery_id")
    )
    return json_response(webhook_json.delivery_json(delivered))


async def test(request: web.Request) -> web.Response:
    """Sends the test webhook now and answers how the endpoint took it."""
    endpoint = await request.app[WEBHOOKS].find(principal(request), record_id(request))
    return json_response(webhook_json.outcome_json(await request.app[DELIVERER].test(endpoint)))
