"""Submission endpoints, with the creation paths the official clients use."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from aiohttp import web

from signsvc.http.appkeys import CLOCK, DB, FILES, LIST_PAGES, ONE_OFFS, RESULTS, SUBMISSIONS, TEMPLATES
from signsvc.http.list_pages import Made
from signsvc.http.middleware import principal
from signsvc.http.pagination import Page, paginated
from signsvc.http.params import Query, read_json, record_id
from signsvc.http.responses import json_response
from signsvc.http.time_filters import Range
from signsvc.loaders import submissions as loaders
from signsvc.wire import result_json, submission_json
from storage.filters import SubmissionFilters
from storage.records import Submission, Submitter


async def index(request: web.Request) -> web.Response:
    return await _page(request, Query(request).integer("template_id"))


async def of_template(request: web.Request) -> web.Response:
    template = await request.app[TEMPLATES].find(principal(request), record_id(request))
    return await _page(request, template.id)


async def create(request: web.Request) -> web.Response:
    """POST /submissions: the array of created submitters."""
    submission, submitters = await request.app[SUBMISSIONS].create(principal(request), await read_json(request))
    return json_response(await _created(request, submission, submitters))


async def init(request: web.Request) -> web.Response:
    """POST /submissions/init, as the official clients create submissions."""
    submission, submitters = await request.app[SUBMISSIONS].create(principal(request), await read_json(request))
    return json_response(
        {
            "id": submission.id,
            "submitters": await _created(request, submission, submitters),
            "expire_at": submission.expire_at,
            "created_at": submission.created_at,
        }
    )


async def from_emails(request: web.Request) -> web.Response:
    """POST /submissions/emails: one submission for each address, its first role signed by it."""
    made = await request.app[SUBMISSIONS].create_for_emails(principal(request), await read_json(request))
    return json_response(
        [item for submission, submitters in made for item in await _created(request, submission, submitters)]
    )


async def from_pdf(request: web.Request) -> web.Response:
    """POST /submissions/pdf: a one-off submission of documents without a template."""
    submission, submitters = await request.app[ONE_OFFS].from_pdf(principal(request), await read_json(request))
    return json_response(await _one_off(request, submission, submitters))


async def from_html(request: web.Request) -> web.Response:
    """POST /submissions/html: a one-off submission of HTML documents."""
    submission, submitters = await request.app[ONE_OFFS].from_html(principal(request), await read_json(request))
    return json_response(await _one_off(request, submission, submitters))


async def from_docx(request: web.Request) -> web.Response:
    """POST /submissions/docx: a one-off submission of DOCX documents filled with `variables`."""
    submission, submitters = await request.app[ONE_OFFS].from_docx(principal(request), await read_json(request))
    return json_response(await _one_off(request, submission, submitters))


async def show(request: web.Request) -> web.Response:
    submission = await request.app[SUBMISSIONS].find(principal(request), record_id(request))
    return json_response(await _record(request, submission, with_events=True))


async def documents(request: web.Request) -> web.Response:
    """The signed documents once completed; before that, previews with every value entered so far."""
    submission = await request.app[SUBMISSIONS].find(principal(request), record_id(request))
    found = await request.app[RESULTS].documents(submission, merge=bool(Query(request).boolean("merge")))
    return json_response(result_json.documents_json(request.app[FILES].links, submission, found))


async def pdf(request: web.Request) -> web.Response:
    """The signed documents, combined document and audit log of a completed submission."""
    submission = await request.app[SUBMISSIONS].find(principal(request), record_id(request))
    completed = await request.app[RESULTS].completed(submission)
    return json_response(result_json.completed_json(request.app[FILES].links, submission, completed))


async def update(request: web.Request) -> web.Response:
    body = await read_json(request)
    submission = await request.app[SUBMISSIONS].update(principal(request), record_id(request), body)
    return json_response(await _record(request, submission, with_events=False))


async def destroy(request: web.Request) -> web.Response:
    submissions, who = request.app[SUBMISSIONS], principal(request)
    if Query(request).boolean("permanently"):
        submission = await submissions.delete(who, record_id(request))
    else:
        submission = await submissions.archive(who, record_id(request))
    return json_response(
        {"id": submission.id, "envelope_id": submission.envelope_id, "archived_at": submission.archived_at}
    )


async def _record(request: web.Request, submission: Submission, *, with_events: bool) -> dict[str, Any]:
    files = request.app[FILES]
    related = await loaders.records(request.app[DB], files, submission.account_id, [submission], events=with_events)
    return submission_json.submission_record(
        files.links, request.app[CLOCK].now(), related, submission, with_events=with_events
    )


async def _created(request: web.Request, submission: Submission, submitters: list[Submitter]) -> list[dict[str, Any]]:
    files = request.app[FILES]
    related = await loaders.created(request.app[DB], files, submission, submitters)
    return submission_json.created(files.links, request.app[CLOCK].now(), related, submission, submitters)


async def _one_off(request: web.Request, submission: Submission, submitters: list[Submitter]) -> dict[str, Any]:
    files = request.app[FILES]
    related = await loaders.created(request.app[DB], files, submission, submitters)
    return submission_json.one_off_created(files.links, request.app[CLOCK].now(), related, submission, submitters)


async def _page(request: web.Request, template_id: int | None) -> web.Response:
    query = Query(request)
    page = Page.from_query(query)
    created, completed = (
        Range.from_query(query, "created_at_from", "created_at_to"),
        Range.from_query(query, "completed_at_from", "completed_at_to"),
    )
    filters = SubmissionFilters(
        template_id=template_id,
        archived=query.boolean("archived"),
        status=query.string("status"),
        q=query.string("q"),
        created_from=created.start,
        created_until=created.end,
        completed_from=completed.start,
        completed_until=completed.end,
        limit=page.limit,
        after=page.after,
        before=page.before,
    )
    who = principal(request)

    async def make(now: datetime) -> Made:
        found = await request.app[SUBMISSIONS].page(who, filters)
        related = await loaders.page(request.app[DB], who.account_id, found)
        items = submission_json.submission_page(request.app[FILES].links, now, related, found)
        by_id = {item["id"]: item for item in items}
        return paginated(found, lambda submission: by_id[submission.id]), (s.expire_at for s in found)

    if filters.status is not None:  # chosen by the time to the microsecond: not kept
        return json_response((await make(request.app[CLOCK].now()))[0])
    return await request.app[LIST_PAGES].answer(request, who.account_id, make)
