"""Clickwrap and consent endpoints (SPEC section 4, Clickwraps and consents)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

import storage.clickwraps as stored
from signsvc.clickwraps import clickwraps
from signsvc.http.middleware import client_address, principal
from signsvc.http.pagination import Page, paginated
from signsvc.http.params import Query, read_json
from signsvc.http.responses import json_response
from signsvc.http.appkeys import SERVICES
from storage.records import Clickwrap, Consent


def _id(request: web.Request) -> int:
    return int(request.match_info["id"])


async def index(request: web.Request) -> web.Response:
    services, page = request.app[SERVICES], Page.from_query(Query(request))
    found = await stored.list_clickwraps(services.db, principal(request).account_id, limit=page.limit,
                                         after=page.after, before=page.before)
    return json_response(paginated(found, lambda c: clickwrap_json(services.config.site, c)))


async def create(request: web.Request) -> web.Response:
    clickwrap_id = await clickwraps.create(request.app[SERVICES], principal(request), await read_json(request))
    return await _show(request, clickwrap_id)


async def show(request: web.Request) -> web.Response:
    return await _show(request, _id(request))


async def update(request: web.Request) -> web.Response:
    body = await read_json(request)
    await clickwraps.update(request.app[SERVICES], principal(request), _id(request), body)
    return await _show(request, _id(request))


async def publish(request: web.Request) -> web.Response:
    await clickwraps.publish(request.app[SERVICES], principal(request), _id(request))
    return await _show(request, _id(request))


async def consents(request: web.Request) -> web.Response:
    services, page = request.app[SERVICES], Page.from_query(Query(request))
    clickwrap = await clickwraps.find(services.db, principal(request), _id(request))
    found = await stored.list_consents(services.db, clickwrap.id, limit=page.limit, after=page.after,
                                       before=page.before)
    return json_response(paginated(found, consent_json))


async def create_consent(request: web.Request) -> web.Response:
    services = request.app[SERVICES]
    found = await clickwraps.consent(services, principal(request), _id(request), await read_json(request),
                                     caller_ip=client_address(request, services.config.trusted_proxies),
                                     caller_user_agent=request.headers.get("User-Agent"))
    return json_response(consent_json(found))


async def show_consent(request: web.Request) -> web.Response:
    return json_response(consent_json(await clickwraps.find_consent(request.app[SERVICES].db, principal(request),
                                                                    _id(request))))


async def _show(request: web.Request, clickwrap_id: int) -> web.Response:
    services = request.app[SERVICES]
    clickwrap = await clickwraps.find(services.db, principal(request), clickwrap_id)
    return json_response(clickwrap_json(services.config.site, clickwrap))


def clickwrap_json(site: str, clickwrap: Clickwrap) -> dict[str, Any]:
    return {"id": clickwrap.id, "name": clickwrap.name, "kind": clickwrap.kind, "slug": clickwrap.slug,
            "published": clickwrap.active_version_number is not None,
            "active_version_number": clickwrap.active_version_number, "url": f"{site}/c/{clickwrap.slug}",
            **clickwrap.settings, "created_at": clickwrap.created_at, "updated_at": clickwrap.updated_at}


def consent_json(consent: Consent) -> dict[str, Any]:
    return {"id": consent.id, "clickwrap_id": consent.clickwrap_id,
            "clickwrap_version_number": consent.clickwrap_version_number, "name": consent.name,
            "email": consent.email, "external_id": consent.external_id, "ip": consent.ip,
            "user_agent": consent.user_agent, "agreed_at": consent.agreed_at, "certificate_url": None}
