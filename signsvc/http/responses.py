"""JSON responses in the wire format (`signsvc.wire.encoding`)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from signsvc.wire.encoding import dumps


def json_response(data: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(data, status=status, headers=headers, dumps=dumps)


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
    return json_response({"error": message}, status=status, headers=headers)
