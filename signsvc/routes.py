"""Every route of the service, top to bottom. Ids in paths are digits only, so literal paths never clash."""

from __future__ import annotations

from aiohttp import web

import pages
from signsvc.api import system, users
from signsvc.web import files, home


def setup(app: web.Application) -> None:
    app.router.add_get("/", home.show)
    app.router.add_get("/health", system.health)
    app.router.add_get("/openapi.json", system.openapi)
    app.router.add_static("/static", pages.STATIC_DIR)
    app.router.add_get("/file/{token}/{filename:.+}", files.show)

    app.router.add_get("/api/user", users.show)
