"""JSON responses in the wire format (`signsvc.wire.encoding`)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from signsvc.wire.encoding import encoded


def json_response(data: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return encoded_response(encoded(data), status=status, headers=headers)


def encoded_response(body: bytes, *, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """A response of JSON already encoded."""
    return web.Response(body=body, status=status, headers=headers, content_type="application/json", charset="utf-8")


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
    return json_response({"error": message}, status=status, headers=headers)
