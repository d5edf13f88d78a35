"""The home page: what this service is and where its API lives."""

from __future__ import annotations

from aiohttp import web

import pages
from signsvc import __version__
from signsvc.http.appkeys import SETTINGS


async def show(request: web.Request) -> web.Response:
    html = pages.page_templates().get_template("home.html").render(site=request.app[SETTINGS].site,
                                                                    version=__version__)
    return web.Response(text=html, content_type="text/html")
