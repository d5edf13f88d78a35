"""The home page: what this service is and where its API lives."""

from __future__ import annotations

import aiohttp_jinja2
from aiohttp import web

from signsvc import __version__
from signsvc.http.appkeys import SETTINGS


@aiohttp_jinja2.template("home.html")
async def show(request: web.Request) -> dict[str, str]:
    return {"site": request.app[SETTINGS].site, "version": __version__}
