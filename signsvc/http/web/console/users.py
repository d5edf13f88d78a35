"""The console's users pages (being built)."""

from __future__ import annotations

from aiohttp import web

ROUTES: list[web.RouteDef] = []
