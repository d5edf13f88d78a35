"""Reading request input: query values as real clients send them, and JSON bodies.

The official clients send unset parameters as the literal text `None`, `undefined` or `null`;
those count as absent, like an empty value. Booleans are true/false/1/0 in any case.
"""

from __future__ import annotations

import json
import re
from typing import Any

from aiohttp import web

from signsvc.infra import errors

_ABSENT = {"", "none", "undefined", "null"}
_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}
_INTEGER = re.compile(r"^[+-]?\d+$")
MAX_INTEGER = 2**63 - 1  # the databases' BIGINT
_MAX_DIGITS = 300  # an integer longer than this stands as 10**300, far beyond any bound it is compared with
_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")  # a JSON escape of NUL, not an escaped backslash before "u0000"


def record_id(request: web.Request, name: str = "id") -> int:
    """An id from the path (the route table lets only digits through)."""
    return int(request.match_info[name])


class Query:
    def __init__(self, request: web.Request) -> None:
        self._values = request.query

    def string(self, name: str) -> str | None:
        value = self._values.get(name, "").strip()
        if "\x00" in value:
            raise errors.Invalid(f"{name} must not contain NUL characters")
        return None if value.lower() in _ABSENT else value

    def integer(self, name: str, *, minimum: int = 0, maximum: int = MAX_INTEGER) -> int | None:
        value = self.string(name)
        if value is None:
            return None
        number = int(value) if _INTEGER.match(value) else None
        if number is None or not minimum <= number <= maximum:
            raise errors.Invalid(f"{name} must be an integer from {minimum} to {maximum}")
        return number

    def any_integer(self, name: str) -> int | None:
        """An integer of any size or sign (for bounds that clamp rather than refuse)."""
        value = self.string(name)
        if value is None:
            return None
        if not _INTEGER.match(value):
            raise errors.Invalid(f"{name} must be an integer")
        digits = value.lstrip("+-").lstrip("0") or "0"
        number = int(digits) if len(digits) <= _MAX_DIGITS else 10**_MAX_DIGITS
        return -number if value.startswith("-") else number

    def boolean(self, name: str) -> bool | None:
        value = self.string(name)
        if value is None:
            return None
        if value.lower() not in _BOOLEANS:
            raise errors.Invalid(f"{name} must be true or false")
        return _BOOLEANS[value.lower()]


async def read_json(request: web.Request) -> dict[str, Any]:
    """The JSON object in the body; no body reads as `{}`.

    A body is read as JSON only when sent with `Content-Type: application/json`,
    whether it came with a Content-Length or chunked.
    """
    if not request.body_exists:
        return {}
    if request.content_type != "application/json":
        raise errors.UnsupportedMediaType()
    body = await request.read()
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise errors.Invalid(f"JSON parse error: {exc}") from None
    except RecursionError:
        raise errors.Invalid("JSON parse error: nested too deeply") from None
    if not isinstance(data, dict):
        raise errors.Invalid(f"Request body must be a JSON object, not {type(data).__name__}")
    if _NUL.search(body):  # text the databases cannot store alike (Postgres refuses it)
        raise errors.Invalid("Request body must not contain NUL characters (\\u0000)")
    return data
