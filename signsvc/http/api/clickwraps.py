"""Clickwrap and consent endpoints."""

from __future__ import annotations

from aiohttp import web

from signsvc.http.appkeys import CLICKWRAPS, FILES, SETTINGS
from signsvc.http.middleware import client_address, principal
from signsvc.http.pagination import Page, paginated
from signsvc.http.params import Query, read_json, record_id
from signsvc.http.responses import json_response
from signsvc.wire import clickwrap_json
from storage.records import Clickwrap


async def index(request: web.Request) -> web.Response:
    query = Query(request)
    page = Page.from_query(query)
    found = await request.app[CLICKWRAPS].page(
        principal(request),
        archived=query.boolean("archived") or False,
        limit=page.limit,
        after=page.after,
        before=page.before,
    )
    urls = request.app[SETTINGS].urls
    return json_response(paginated(found, lambda clickwrap: clickwrap_json.clickwrap_json(urls, clickwrap)))


async def create(request: web.Request) -> web.Response:
    return _shown(request, await request.app[CLICKWRAPS].create(principal(request), await read_json(request)))


async def show(request: web.Request) -> web.Response:
    return _shown(request, await request.app[CLICKWRAPS].find(principal(request), record_id(request)))


async def update(request: web.Request) -> web.Response:
    body = await read_json(request)
    return _shown(request, await request.app[CLICKWRAPS].update(principal(request), record_id(request), body))


async def publish(request: web.Request) -> web.Response:
    return _shown(request, await request.app[CLICKWRAPS].publish(principal(request), record_id(request)))


async def consents(request: web.Request) -> web.Response:
    page = Page.from_query(Query(request))
    found = await request.app[CLICKWRAPS].consents(
        principal(request), record_id(request), limit=page.limit, after=page.after, before=page.before
    )
    links = request.app[FILES].links
    return json_response(paginated(found, lambda consent: clickwrap_json.consent_json(links, consent)))


async def create_consent(request: web.Request) -> web.Response:
    consent = await request.app[CLICKWRAPS].consent(
        principal(request),
        record_id(request),
        await read_json(request),
        caller_ip=client_address(request),
        caller_user_agent=request.headers.get("User-Agent"),
    )
    return json_response(clickwrap_json.consent_json(request.app[FILES].links, consent))


async def show_consent(request: web.Request) -> web.Response:
    consent = await request.app[CLICKWRAPS].find_consent(principal(request), record_id(request))
    return json_response(clickwrap_json.consent_json(request.app[FILES].links, consent))


def _shown(request: web.Request, clickwrap: Clickwrap) -> web.Response:
    return json_response(clickwrap_json.clickwrap_json(request.app[SETTINGS].urls, clickwrap))
