"""Submitter endpoints."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from aiohttp import web

from signsvc.http.appkeys import CLOCK, DB, FILES, LIST_PAGES, SUBMITTERS
from signsvc.http.list_pages import Made
from signsvc.http.middleware import principal
from signsvc.http.pagination import Page, paginated
from signsvc.http.params import Query, read_json, record_id
from signsvc.http.responses import json_response
from signsvc.http.time_filters import Range
from signsvc.loaders import submissions as loaders
from signsvc.wire import submission_json
from storage.filters import SubmitterFilters
from storage.records import Submitter


async def index(request: web.Request) -> web.Response:
    query = Query(request)
    page = Page.from_query(query)
    completed = Range.from_query(query, "completed_after", "completed_before")
    filters = SubmitterFilters(
        submission_id=query.integer("submission_id"),
        external_id=query.string("external_id") or query.string("application_key"),
        q=query.string("q"),
        completed_from=completed.start,
        completed_until=completed.end,
        limit=page.limit,
        after=page.after,
        before=page.before,
    )
    who = principal(request)

    async def make(now: datetime) -> Made:
        found = await request.app[SUBMITTERS].page(who, filters)
        files = request.app[FILES]
        related = await loaders.submitters(request.app[DB], files, who.account_id, found, events=True)
        listed = paginated(found, lambda s: submission_json.submitter_record(files.links, now, related, s))
        return listed, (s.expire_at for s in related.submissions.values())

    return await request.app[LIST_PAGES].answer(request, who.account_id, make)


async def show(request: web.Request) -> web.Response:
    submitter = await request.app[SUBMITTERS].find(principal(request), record_id(request))
    return json_response(await record(request, submitter))


async def update(request: web.Request) -> web.Response:
    body = await read_json(request)
    submission, submitter = await request.app[SUBMITTERS].update(principal(request), record_id(request), body)
    files = request.app[FILES]
    related = await loaders.changed_submitter(request.app[DB], files, submission, submitter)
    return json_response(submission_json.updated_submitter(files.links, request.app[CLOCK].now(), related, submitter))


async def record(request: web.Request, submitter: Submitter) -> dict[str, Any]:
    """GET /submitters/{id}'s answer (the testing extension's actions answer it too)."""
    files = request.app[FILES]
    related = await loaders.submitters(request.app[DB], files, submitter.account_id, [submitter], events=True)
    return submission_json.submitter_record(files.links, request.app[CLOCK].now(), related, submitter)
