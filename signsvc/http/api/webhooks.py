"""Webhook endpoint management under /api/webhooks: an extension of ours (SPEC section 6 leaves it to
account settings), keyed like every other call and scoped to the key's account, live or test."""

from __future__ import annotations

from typing import Any

from aiohttp import web

import storage.webhooks as stored
from signsvc.infra import errors
from signsvc.webhooks import endpoints as webhooks
from signsvc.http.middleware import principal
from signsvc.http.pagination import Page, paginated
from signsvc.http.params import Query, read_json
from signsvc.http.responses import json_response
from signsvc.http.appkeys import DELIVERER, SERVICES
from signsvc.webhooks.delivery import Outcome
from storage.records import DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookEndpoint


def _id(request: web.Request, name: str = "id") -> int:
    return int(request.match_info[name])


async def index(request: web.Request) -> web.Response:
    services, page = request.app[SERVICES], Page.from_query(Query(request))
    found = await stored.list_endpoints(services.db, principal(request).account_id, limit=page.limit,
                                        after=page.after, before=page.before)
    return json_response(paginated(found, endpoint_json))


async def create(request: web.Request) -> web.Response:
    services, body = request.app[SERVICES], await read_json(request)
    return json_response(_changed(await webhooks.create(services.db, services.clock, principal(request).account_id,
                                                        body)))


async def show(request: web.Request) -> web.Response:
    return json_response(endpoint_json(await webhooks.find(request.app[SERVICES].db, principal(request),
                                                           _id(request))))


async def update(request: web.Request) -> web.Response:
    services, body = request.app[SERVICES], await read_json(request)
    return json_response(_changed(await webhooks.update(services.db, services.clock, principal(request),
                                                        _id(request), body)))


async def destroy(request: web.Request) -> web.Response:
    return json_response(endpoint_json(await webhooks.delete(request.app[SERVICES].db, principal(request),
                                                             _id(request))))


async def deliveries(request: web.Request) -> web.Response:
    """The delivery log of an endpoint, newest first, each delivery with its attempts."""
    services, query = request.app[SERVICES], Query(request)
    page, status = Page.from_query(query), query.string("status")
    if status is not None and status not in {s.value for s in DeliveryStatus}:
        raise errors.Invalid(f"status must be one of: {', '.join(DeliveryStatus)}")
    endpoint = await webhooks.find(services.db, principal(request), _id(request))
    found = await stored.list_deliveries(services.db, endpoint.id, status=DeliveryStatus(status) if status else None,
                                         limit=page.limit, after=page.after, before=page.before)
    attempts = await stored.attempts_of(services.db, endpoint.id, found)
    return json_response(paginated(found, lambda delivery: delivery_json(delivery, attempts[delivery.id])))


async def resend(request: web.Request) -> web.Response:
    services = request.app[SERVICES]
    delivery = await webhooks.resend(services.db, services.clock, principal(request), _id(request),
                                     _id(request, "delivery_id"))
    attempts = await stored.attempts_of(services.db, delivery.endpoint_id, [delivery])
    return json_response(delivery_json(delivery, attempts[delivery.id]))


async def test(request: web.Request) -> web.Response:
    """Sends the test webhook now and answers how the endpoint took it."""
    services = request.app[SERVICES]
    endpoint = await webhooks.find(services.db, principal(request), _id(request))
    return json_response(outcome_json(await request.app[DELIVERER].test(services, endpoint)))


def _changed(changed: webhooks.Changed) -> dict[str, Any]:
    return {**endpoint_json(changed.endpoint), "warnings": changed.warnings}


def endpoint_json(endpoint: WebhookEndpoint) -> dict[str, Any]:
    """The secret's value is never shown: whoever set it has it."""
    return {"id": endpoint.id, "url": endpoint.url, "events": endpoint.events,
            "secret": {"header": endpoint.secret_header} if endpoint.secret is not None else None,
            "configured": endpoint.configured, "created_at": endpoint.created_at, "updated_at": endpoint.updated_at}


def delivery_json(delivery: WebhookDelivery, attempts: list[WebhookAttempt]) -> dict[str, Any]:
    return {"id": delivery.id, "endpoint_id": delivery.endpoint_id, "event_id": delivery.event_uuid,
            "event_type": delivery.event_type, "event_timestamp": delivery.event_created_at,
            "status": delivery.status.value, "next_attempt_at": delivery.next_attempt_at,
            "attempts": [attempt_json(attempt) for attempt in attempts], "created_at": delivery.created_at,
            "updated_at": delivery.updated_at}


def attempt_json(attempt: WebhookAttempt) -> dict[str, Any]:
    return {"number": attempt.number, "attempted_at": attempt.attempted_at,
            "response_status": attempt.response_status, "error": attempt.error, "duration_ms": attempt.duration_ms}


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    return {"delivered": outcome.delivered, "attempted_at": outcome.attempted_at,
            "response_status": outcome.response_status, "error": outcome.error, "duration_ms": outcome.duration_ms}
