"""The events feed (SPEC section 4, Events feed): missed `form.completed` events, latest first."""

from __future__ import annotations

from aiohttp import web

from signsvc.submissions import feed as events_feed
from signsvc.http.middleware import principal
from signsvc.http.pagination import Page
from signsvc.http.params import Query
from signsvc.http.responses import json_response
from signsvc.http.api.submitters import webhook_data
from signsvc.http.appkeys import SERVICES

LAST_SECOND = 253_402_300_799  # 9999-12-31T23:59:59Z: Unix times the feed can name


async def form_completed(request: web.Request) -> web.Response:
    query, services = Query(request), request.app[SERVICES]
    page = await events_feed.form_completed(
        services.db, principal(request).account_id, limit=Page.from_query(query).limit,
        after=query.integer("after", maximum=LAST_SECOND), before=query.integer("before", maximum=LAST_SECOND))
    items = [{"event_type": "form.completed", "timestamp": signer.completed_at,
              "data": await webhook_data(services, signer)} for signer in page.signers]
    return json_response({"data": items, "pagination": {"count": len(items), "next": page.next, "prev": page.prev}})
