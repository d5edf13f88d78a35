"""Submitter endpoints."""

from __future__ import annotations

from aiohttp import web

from signsvc.http.appkeys import CLOCK, DB, FILES, SUBMITTERS
from signsvc.http.middleware import principal
from signsvc.http.pagination import Page, paginated
from signsvc.http.params import Query, read_json, record_id
from signsvc.http.responses import json_response
from signsvc.http.time_filters import Range
from signsvc.wire import submission_json


async def index(request: web.Request) -> web.Response:
    query = Query(request)
    page = Page.from_query(query)
    completed = Range.from_query(query, "completed_after", "completed_before")
    found = await request.app[SUBMITTERS].page(
        principal(request), submission_id=query.integer("submission_id"),
        external_id=query.string("external_id") or query.string("application_key"), q=query.string("q"),
        completed_from=completed.start, completed_until=completed.end, limit=page.limit, after=page.after,
        before=page.before)
    db, files, now = request.app[DB], request.app[FILES], request.app[CLOCK].now()
    items = {s.id: await submission_json.submitter_record(db, files, now, s) for s in found}
    return json_response(paginated(found, lambda submitter: items[submitter.id]))


async def show(request: web.Request) -> web.Response:
    submitter = await request.app[SUBMITTERS].find(principal(request), record_id(request))
    return json_response(await submission_json.submitter_record(request.app[DB], request.app[FILES],
                                                                request.app[CLOCK].now(), submitter))


async def update(request: web.Request) -> web.Response:
    body = await read_json(request)
    submitter = await request.app[SUBMITTERS].update(principal(request), record_id(request), body)
    return json_response(await submission_json.updated_submitter(request.app[DB], request.app[FILES],
                                                                 request.app[CLOCK].now(), submitter))
