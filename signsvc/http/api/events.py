"""The events feed: missed `form.completed` events, latest first."""

from __future__ import annotations

from aiohttp import web

from signsvc.http.appkeys import CLOCK, DB, FILES, SUBMISSIONS
from signsvc.http.middleware import principal
from signsvc.http.pagination import Page
from signsvc.http.params import Query
from signsvc.http.responses import json_response
from signsvc.wire import submission_json

LAST_SECOND = 253_402_300_799  # 9999-12-31T23:59:59Z: Unix times the feed can name


async def form_completed(request: web.Request) -> web.Response:
    query = Query(request)
    page = await request.app[SUBMISSIONS].completed_feed(
        principal(request), limit=Page.from_query(query).limit, after=query.integer("after", maximum=LAST_SECOND),
        before=query.integer("before", maximum=LAST_SECOND))
    db, files, now = request.app[DB], request.app[FILES], request.app[CLOCK].now()
    items = [{"event_type": "form.completed", "timestamp": submitter.completed_at,
              "data": await submission_json.webhook_submitter(db, files, now, submitter)}
             for submitter in page.submitters]
    return json_response({"data": items, "pagination": {"count": len(items), "next": page.next, "prev": page.prev}})
