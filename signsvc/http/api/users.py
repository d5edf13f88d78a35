"""GET /api/user: the user the API key belongs to."""

from __future__ import annotations

from aiohttp import web

from signsvc.http.middleware import principal
from signsvc.http.responses import json_response


async def show(request: web.Request) -> web.Response:
    user = principal(request)
    return json_response(
        {"id": user.user_id, "first_name": user.first_name, "last_name": user.last_name, "email": user.email}
    )
