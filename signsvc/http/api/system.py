"""Endpoints without a key: the health check and the OpenAPI document."""

from __future__ import annotations

import asyncio

from aiohttp import web

from signsvc.http.appkeys import DB, FONT_SCRIPTS, OPENAPI
from signsvc.http.responses import json_response
from storage import StorageError

HEALTH_TIMEOUT_SECONDS = 2.0


async def health(request: web.Request) -> web.Response:
    """200 while the database answers, 503 otherwise: for load balancers and waiting test suites. The 200 also
    says which scripts the fonts draw, as worked out once (`font_files.scripts`, begun after the ready line): no
    font is read here; a call in the first tens of milliseconds after the ready line may wait for them."""
    try:
        await asyncio.wait_for(request.app[DB].ping(), HEALTH_TIMEOUT_SECONDS)
    except (StorageError, TimeoutError):
        return json_response({"status": "unavailable", "database": "unreachable"}, status=503)
    scripts = await asyncio.shield(request.app[FONT_SCRIPTS]())  # shared: a client that leaves cancels only its wait
    return json_response({"status": "ok", "database": "ok", "scripts": list(scripts)})


async def openapi(request: web.Request) -> web.Response:
    return web.Response(body=request.app[OPENAPI], content_type="application/json")
