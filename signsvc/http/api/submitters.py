"""Signer endpoints (SPEC section 4, Submitters)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

import storage.submissions as stored
from signsvc.submissions import submitters
from signsvc.wire import submission_json
from signsvc.http.middleware import principal
from signsvc.http.pagination import Page, paginated
from signsvc.http.params import Query, read_json
from signsvc.http.responses import json_response
from signsvc.http.time_filters import Range
from signsvc.http.appkeys import INGEST, SERVICES
from signsvc.infra.services import Services
from storage.records import Submitter


def _id(request: web.Request) -> int:
    return int(request.match_info["id"])


async def index(request: web.Request) -> web.Response:
    query, services, who = Query(request), request.app[SERVICES], principal(request)
    page = Page.from_query(query)
    completed = Range.from_query(query, "completed_after", "completed_before")
    found = await stored.list_submitters(
        services.db, who.account_id, submission_id=query.integer("submission_id"),
        external_id=query.string("external_id") or query.string("application_key"), q=query.string("q"),
        completed_from=completed.start, completed_until=completed.end, limit=page.limit, after=page.after,
        before=page.before)
    items = {signer.id: await submitter_record(services, signer) for signer in found}
    return json_response(paginated(found, lambda signer: items[signer.id]))


async def show(request: web.Request) -> web.Response:
    services = request.app[SERVICES]
    signer = await submitters.find(services.db, principal(request), _id(request))
    return json_response(await submitter_record(services, signer))


async def update(request: web.Request) -> web.Response:
    services, body = request.app[SERVICES], await read_json(request)
    signer = await submitters.update(services, request.app[INGEST], principal(request), _id(request), body)
    submission = await stored.get_submission(services.db, signer.submission_id)
    ctx = await submission_json.context(services, submission)
    return json_response(submission_json.submitter_json(ctx, submission, signer, embed=True))


async def submitter_record(services: Services, signer: Submitter) -> dict[str, Any]:
    """A signer with values, documents, its template and its submission's audit trail."""
    submission = await stored.get_submission(services.db, signer.submission_id)
    ctx = await submission_json.context(services, submission)
    template = await submission_json.template_of(services, submission)
    events = [e for e in await stored.events_of(services.db, submission.id) if e.submitter_id == signer.id]
    return {**submission_json.submitter_json(ctx, submission, signer),
            "template": submission_json.template_summary(template),
            "submission_events": [submission_json.event_json(event) for event in events]}


async def webhook_data(services: Services, signer: Submitter) -> dict[str, Any]:
    """A signer as `form.*` events and the events feed carry it (SPEC section 2, webhook data)."""
    submission = await stored.get_submission(services.db, signer.submission_id)
    template = await submission_json.template_of(services, submission)
    signers = await stored.submitters_of(services.db, submission.id)
    ctx = await submission_json.context(services, submission)
    return submission_json.webhook_submitter_json(ctx, submission, signer, signers, template)

