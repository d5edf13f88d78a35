"""The testing extension under /api/_testing/ (SIGNSVC_TESTING=1 only): the clock, a reset, acting as a
submitter without a browser, the captured emails and webhook deliveries, and running the jobs that are
due. Keyed like the rest of the API; records are scoped to the key's account, the clock and the reset
to the whole service."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp import web

from signsvc.accounts.user_links import sealed_from
from signsvc.http.api import submitters as submitter_api
from signsvc.http.appkeys import KIT, SUBMITTERS, TESTING_CLOCK, WEBHOOKS
from signsvc.http.middleware import client_address, principal
from signsvc.http.pagination import Page, paginated
from signsvc.http.params import Query, read_json, record_id
from signsvc.http.responses import json_response
from signsvc.infra import errors, json_fields
from signsvc.infra.captured import CapturedEmail
from signsvc.submissions.submitters import Browser
from signsvc.wire import testing_json, webhook_json
from storage.outbound_records import DeliveryStatus
from storage.records import Submitter

MAX_WAIT_SECONDS = 30
POLL_SECONDS = 0.05
MAX_ADVANCE = timedelta(days=365 * 100)
# The clock stays far from the ends of what dates can hold, so that every rule adding to it or taking from it
# (leases, retries, link lifetimes, windows) still has a date: set from year 1970 to 8999 as written, and never
# advanced past LATEST.
LATEST = datetime(9001, 1, 1, tzinfo=UTC)
# An RFC 3339 date-time (`T` and `Z` in either case, no leap second) of a year from 1970 to 8999; the OpenAPI
# document states the same pattern with `format: date-time` (TestingSetTimeInput.time).
TIME_PATTERN = (
    r"^(?:19[7-9][0-9]|[2-8][0-9]{3})-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
    r"[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$"
)
_TIME = re.compile(TIME_PATTERN)


async def clock(request: web.Request) -> web.Response:
    return json_response(testing_json.clock_json(request.app[TESTING_CLOCK]))


async def advance(request: web.Request) -> web.Response:
    """Moves the clock forward by `seconds`, then runs what became due."""
    seconds = (await read_json(request)).get("seconds")
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or not seconds >= 0:
        raise errors.Invalid("seconds is required: a number of seconds, 0 or more")
    if seconds > MAX_ADVANCE.total_seconds():  # compared as numbers: a timedelta of 1e20 seconds overflows
        raise errors.Invalid("seconds is too large: at most a hundred years")
    if request.app[TESTING_CLOCK].now() + timedelta(seconds=seconds) > LATEST:
        raise errors.Invalid(f"seconds is too large: the clock cannot pass {LATEST:%Y-%m-%dT%H:%M:%SZ}")
    request.app[TESTING_CLOCK].advance(timedelta(seconds=seconds))
    return await _settled_clock(request)


async def set_time(request: web.Request) -> web.Response:
    """Sets the clock to `time` (RFC 3339, a year from 1970 to 8999), then runs what became due."""
    text = json_fields.text(await read_json(request), "time")
    try:
        if text is None or not _TIME.match(text):
            raise ValueError(text)
        moment = datetime.fromisoformat(text.upper()).astimezone(UTC)  # refuses a day or an hour out of range
    except ValueError:
        raise errors.Invalid(
            "time is required: an RFC 3339 time of a year from 1970 to 8999, as 2026-05-01T12:00:00Z"
        ) from None
    request.app[TESTING_CLOCK].set(moment)
    return await _settled_clock(request)


async def freeze(request: web.Request) -> web.Response:
    request.app[TESTING_CLOCK].freeze()
    return await clock(request)


async def unfreeze(request: web.Request) -> web.Response:
    request.app[TESTING_CLOCK].unfreeze()
    return await clock(request)


async def reset(request: web.Request) -> web.Response:
    """Every account's templates, submissions, clickwraps, webhook endpoints, events, emails and files
    go; accounts, users and keys stay."""
    await request.app[KIT].reset()
    return json_response({"reset": True})


async def drain(request: web.Request) -> web.Response:
    """Runs every job due now (documents, deliveries, emails) and answers once none is left."""
    return json_response({"ran": await request.app[KIT].settle()})


async def view(request: web.Request) -> web.Response:
    submitter = await _submitter(request)
    return await _acted(request, await request.app[SUBMITTERS].view(submitter.slug))


async def start(request: web.Request) -> web.Response:
    """Saves `values` as the signing form does; the first save is `form.started`."""
    body, submitter = await read_json(request), await _submitter(request)
    return await _acted(request, await request.app[SUBMITTERS].save(submitter.slug, body))


async def complete(request: web.Request) -> web.Response:
    """Completes as the signing form does: `values` saved, required fields checked."""
    body, submitter = await read_json(request), await _submitter(request)
    browser = Browser(client_address(request), request.headers.get("User-Agent") or None)
    return await _acted(request, await request.app[SUBMITTERS].finish(submitter.slug, body, browser))


async def decline(request: web.Request) -> web.Response:
    body, submitter = await read_json(request), await _submitter(request)
    return await _acted(request, await request.app[SUBMITTERS].decline(submitter.slug, body))


async def emails(request: web.Request) -> web.Response:
    """The key's account's emails, newest first; a console user's setup or reset email to anyone but the key's
    user listed without its text and link, as the console's outbox shows it."""
    page, caller = Page.from_query(Query(request)), principal(request)
    found = await request.app[KIT].emails(caller.account_id, limit=page.limit, after=page.after, before=page.before)
    return json_response(paginated([_readable(caller.email, captured) for captured in found], testing_json.email_json))


async def email(request: web.Request) -> web.Response:
    caller = principal(request)
    found = await request.app[KIT].email(caller.account_id, record_id(request))
    if found is None:
        raise errors.NotFound(f"Email {record_id(request)} not found")
    return json_response(testing_json.email_json(_readable(caller.email, found)))


def _readable(reader_email: str, captured: CapturedEmail) -> CapturedEmail:
    """The email as the key's user may read it: a one-time link to another user's password sealed."""
    email = captured.email
    if not sealed_from(email.kind, email.to_address, reader_email):
        return captured
    return dataclasses.replace(captured, email=dataclasses.replace(email, text_body="", html_body=""), links=[])


async def deliveries(request: web.Request) -> web.Response:
    """The key's account's webhook deliveries, newest first; with `wait`, waits up to that many seconds
    for one of `event_type` (and `status`) to exist."""
    query = Query(request)
    event_type, status = query.string("event_type"), query.string("status")
    if status is not None and status not in {s.value for s in DeliveryStatus}:
        raise errors.Invalid(f"status must be one of: {', '.join(DeliveryStatus)}")
    wait = query.integer("wait", maximum=MAX_WAIT_SECONDS) or 0
    limit = Page.from_query(query).limit
    deadline = time.monotonic() + wait
    while True:
        found = await request.app[WEBHOOKS].account_deliveries(
            principal(request).account_id,
            event_type=event_type,
            status=DeliveryStatus(status) if status else None,
            limit=limit,
        )
        if found or time.monotonic() >= deadline:
            return json_response(paginated(found, webhook_json.delivery_json))
        await asyncio.sleep(POLL_SECONDS)


async def _settled_clock(request: web.Request) -> web.Response:
    await request.app[KIT].settle()
    return await clock(request)


async def _submitter(request: web.Request) -> Submitter:
    return await request.app[SUBMITTERS].find(principal(request), record_id(request))


async def _acted(request: web.Request, submitter: Submitter) -> web.Response:
    data: dict[str, Any] = await submitter_api.record(request, submitter)
    return json_response(data)
