"""The home page: what this service is and where its API lives."""

from __future__ import annotations

from aiohttp import web

from signsvc import __version__
from signsvc.http.appkeys import SETTINGS
from signsvc.http.web import rendering


async def show(request: web.Request) -> web.Response:
    return rendering.render(
        request,
        "home.html",
        api_url=request.app[SETTINGS].urls.api(),
        version=__version__,
    )
