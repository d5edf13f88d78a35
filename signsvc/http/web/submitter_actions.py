"""What a submitter does on the signing form (view, save, complete, decline), as JSON calls the hosted
pages make. The submitter's slug in the path is the credential: no API key."""

from __future__ import annotations

from aiohttp import web

from signsvc.http.appkeys import CLOCK, DB, FILES, SUBMITTERS
from signsvc.http.middleware import client_address
from signsvc.http.params import read_json
from signsvc.http.responses import json_response
from signsvc.submissions.submitters import Browser
from signsvc.wire import submission_json
from storage.records import Submitter

USER_AGENT_LIMIT = 1000


async def view(request: web.Request) -> web.Response:
    return await _state(request, await request.app[SUBMITTERS].view(_slug(request)))


async def save(request: web.Request) -> web.Response:
    body = await read_json(request)
    return await _state(request, await request.app[SUBMITTERS].save(_slug(request), body))


async def complete(request: web.Request) -> web.Response:
    body = await read_json(request)
    browser = Browser(client_address(request), request.headers.get("User-Agent", "")[:USER_AGENT_LIMIT] or None)
    submitter = await request.app[SUBMITTERS].finish(_slug(request), body, browser)
    return await _state(request, submitter, event="completed")


async def decline(request: web.Request) -> web.Response:
    submitter = await request.app[SUBMITTERS].decline(_slug(request), await read_json(request))
    return await _state(request, submitter, event="declined")


def _slug(request: web.Request) -> str:
    return request.match_info["slug"]


async def _state(request: web.Request, submitter: Submitter, event: str | None = None) -> web.Response:
    """The submitter as the form shows it; after completing or declining, where to send them next."""
    data = await submission_json.updated_submitter(request.app[DB], request.app[FILES], request.app[CLOCK].now(),
                                                   submitter, embed=False, documents=False)
    if event and (redirect := await request.app[SUBMITTERS].redirect_url(submitter, event)):
        data["redirect_url"] = redirect
    return json_response(data)
