"""The events feed: missed `form.completed` events, latest first."""

from __future__ import annotations

from aiohttp import web

from signsvc.http import pagination
from signsvc.http.appkeys import CLOCK, DB, FILES, SUBMISSIONS
from signsvc.http.middleware import principal
from signsvc.http.params import Query
from signsvc.http.responses import json_response
from signsvc.loaders import submissions as loaders
from signsvc.wire import submission_json


async def form_completed(request: web.Request) -> web.Response:
    query = Query(request)
    page = await request.app[SUBMISSIONS].completed_feed(
        principal(request),
        limit=pagination.limit(query.string("limit")),
        after=query.any_integer("after"),
        before=query.any_integer("before"),
    )
    files, now = request.app[FILES], request.app[CLOCK].now()
    related = await loaders.submitters(
        request.app[DB], files, principal(request).account_id, page.submitters, siblings=True
    )
    items = [
        {
            "event_type": "form.completed",
            "timestamp": submitter.completed_at,
            "data": submission_json.webhook_submitter(files.links, now, related, submitter),
        }
        for submitter in page.submitters
    ]
    return json_response({"data": items, "pagination": {"count": len(items), "next": page.next, "prev": page.prev}})
