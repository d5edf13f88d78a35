"""What a signer does on the signing form (view, save, complete, decline), as JSON calls the
hosted pages make. The signer's slug in the path is the credential: no API key."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from aiohttp import web

import storage.submissions as stored
from signsvc.submissions import submitters
from signsvc.wire import submission_json
from signsvc.http.middleware import client_address
from signsvc.http.params import read_json
from signsvc.http.responses import json_response
from signsvc.http.appkeys import INGEST, SERVICES
from storage.records import Submitter

USER_AGENT_LIMIT = 1000


async def view(request: web.Request) -> web.Response:
    return await _state(request, await submitters.view(request.app[SERVICES], _slug(request)))


async def save(request: web.Request) -> web.Response:
    body = await read_json(request)
    return await _state(request, await submitters.save(request.app[SERVICES], request.app[INGEST], _slug(request),
                                                       body))


async def complete(request: web.Request) -> web.Response:
    services, body = request.app[SERVICES], await read_json(request)
    ip = client_address(request, services.config.trusted_proxies)
    ua = request.headers.get("User-Agent", "")[:USER_AGENT_LIMIT] or None
    signer = await submitters.finish(services, request.app[INGEST], _slug(request), body, ip=ip, ua=ua)
    return await _state(request, signer, event="completed")


async def decline(request: web.Request) -> web.Response:
    signer = await submitters.decline(request.app[SERVICES], _slug(request), await read_json(request))
    return await _state(request, signer, event="declined")


def _slug(request: web.Request) -> str:
    return request.match_info["slug"]


async def _state(request: web.Request, signer: Submitter, event: str | None = None) -> web.Response:
    """The signer as the form shows it; after completing or declining, where to send the signer next."""
    services = request.app[SERVICES]
    submission = await stored.get_submission(services.db, signer.submission_id)
    ctx = await submission_json.context(services, submission)
    data: dict[str, Any] = submission_json.submitter_json(ctx, submission, signer, documents=False)
    redirect = {**submission.preferences, **signer.preferences}.get("completed_redirect_url")
    if event and redirect:
        data["redirect_url"] = redirect + ("&" if "?" in redirect else "?") + urlencode({"event": event})
    return json_response(data)
