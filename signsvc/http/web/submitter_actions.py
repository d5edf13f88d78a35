"""What a submitter does on the signing form (view, save, complete, decline), as JSON calls the hosted
pages make. The submitter's slug in the path is the credential: no API key.

Anyone may post here, so each action first counts against the pages' rate limits and finds the signing link,
before any of the body is read; the body is then bounded in bytes and in JSON values, so that no post holds
the event loop for long. Each action carries the page's language (the browser's Accept-Language), which a signer
keeps when neither they nor their submission has one.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from signsvc.http.appkeys import CLOCK, DB, FILES, SETTINGS, SUBMITTERS
from signsvc.http.middleware import client_address, within_page_limits
from signsvc.http.params import read_json
from signsvc.http.responses import json_response
from signsvc.http.web import catalogue, email_verification
from signsvc.infra import errors
from signsvc.loaders import submissions as loaders
from signsvc.submissions.submitters import Browser
from signsvc.wire import submission_json
from storage.records import Submitter

USER_AGENT_LIMIT = 1000
# The form sends one value at a time: an image or a file as base64 (a third larger than the file) is the
# largest. 16 MiB carries a 12 MiB photo or scan; the page tells the signer this limit (`body_limit`).
BODY_LIMIT = 16 * 1024 * 1024
# JSON values in a body: completing a form of a thousand fields sends a few per field, and parsing this many
# takes milliseconds (a body of 16 MiB of empty arrays takes seconds).
VALUES_LIMIT = 50_000


async def view(request: web.Request) -> web.Response:
    slug = await admitted(request)
    return await _state(request, await request.app[SUBMITTERS].view(slug, catalogue.language(request)))


async def save(request: web.Request) -> web.Response:
    slug = await admitted(request, per_link=False)
    body = await _body(request)
    return await _state(request, await request.app[SUBMITTERS].save(slug, body, language=catalogue.language(request)))


async def complete(request: web.Request) -> web.Response:
    slug = await admitted(request)
    body = await _body(request)
    browser = Browser(
        client_address(request),
        request.headers.get("User-Agent", "")[:USER_AGENT_LIMIT] or None,
        catalogue.language(request),
    )
    submitter = await request.app[SUBMITTERS].finish(slug, body, browser)
    return await _state(request, submitter, event="completed")


async def decline(request: web.Request) -> web.Response:
    slug = await admitted(request)
    submitter = await request.app[SUBMITTERS].decline(slug, await _body(request))
    return await _state(request, submitter, event="declined")


def body_limit(max_body_bytes: int) -> int:
    """The largest body of an action: `BODY_LIMIT`, or the app's own limit when that is lower (0 lifts it)."""
    return min(BODY_LIMIT, max_body_bytes) if max_body_bytes else BODY_LIMIT


async def admitted(request: web.Request, *, per_link: bool = True) -> str:
    """The slug, once the caller is within the pages' rate limits, the slug names a submitter, and the browser
    verified their email address when they must (`email_verification`). Saves count per address only: the form
    saves as the signer types, pauses and ticks, many times a minute on a long form, so a per-link count would
    stop a real signer."""
    slug = request.match_info["slug"]
    found = await request.app[SUBMITTERS].by_slug(slug)
    if not await within_page_limits(request, found.submitter.id if found and per_link else None):
        raise errors.TooManyRequests()
    if found is None:
        raise errors.NotFound("Signing link not found")
    email_verification.refuse_unverified(request, found)
    return slug


async def _body(request: web.Request) -> dict[str, Any]:
    return await read_json(request, max_bytes=body_limit(request.app[SETTINGS].max_body_bytes), max_values=VALUES_LIMIT)


async def _state(request: web.Request, submitter: Submitter, event: str | None = None) -> web.Response:
    """The submitter as the form shows it; after completing or declining, where to send them next."""
    files = request.app[FILES]
    related = await loaders.submitters(
        request.app[DB], files, submitter.account_id, [submitter], templates=False, results=False
    )
    data = submission_json.updated_submitter(
        files.links, request.app[CLOCK].now(), related, submitter, embed=False, documents=False
    )
    if event and (redirect := await request.app[SUBMITTERS].redirect_url(submitter, event)):
        data["redirect_url"] = redirect
    return json_response(data)
