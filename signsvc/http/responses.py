"""JSON responses in the wire format: ISO 8601 UTC timestamps with milliseconds and `Z`."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from aiohttp import web


def iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return iso(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def dumps(data: Any) -> str:
    return json.dumps(data, default=_default, ensure_ascii=False, separators=(",", ":"))


def json_response(data: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(data, status=status, headers=headers, dumps=dumps)


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
    return json_response({"error": message}, status=status, headers=headers)
