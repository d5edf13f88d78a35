"""Reading request input: query values as real clients send them, and JSON bodies.

The official clients send unset parameters as the literal text `None`, `undefined` or `null`;
those count as absent, like an empty value. Booleans are true/false/1/0 in any case.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from aiohttp import web

from signsvc.infra import errors, json_fields
from storage.records import MAX_ID

_ABSENT = {"", "none", "undefined", "null"}
_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}
_INTEGER = re.compile(r"^[+-]?\d+$")
MAX_INTEGER = MAX_ID
_MAX_DIGITS = 300  # an integer longer than this stands as 10**300, far beyond any bound it is compared with
_SURROGATE = re.compile("[\ud800-\udfff]")  # after parsing, only a lone one is left: pairs became one character
_KEY_SHOWN = 100  # a key in a path is cut to this many characters
# Levels of objects and arrays in a request body (the body is the first): far more than any request needs (a
# free-form object inside it may nest json_fields.MAX_OBJECT_DEPTH), far fewer than the stack or orjson allow.
MAX_BODY_DEPTH = 64


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


async def read_json(
    request: web.Request, *, max_bytes: int | None = None, max_values: int | None = None
) -> dict[str, Any]:
    """The JSON object in the body; no body reads as `{}`.

    A body is read as JSON only when sent with `Content-Type: application/json`,
    whether it came with a Content-Length or chunked. Text the databases cannot store (a NUL, a lone
    surrogate) and numbers JSON cannot carry (NaN, Infinity) are refused with the path of the value.
    `max_bytes` and `max_values` bound a body anyone may send (the signing form's actions), so that
    reading and parsing it never hold the event loop for long: larger bodies are 413.
    """
    if not request.body_exists:
        return {}
    if request.content_type != "application/json":
        raise errors.UnsupportedMediaType()
    body = await _body(request, max_bytes)
    if not body.strip():
        return {}
    if max_values is not None and _values_at_most(body) > max_values:
        raise errors.PayloadTooLarge(f"Request body is too large: it holds more than {max_values} JSON values")
    data, nonfinite = _parsed(body)
    if not isinstance(data, dict):
        raise errors.Invalid(f"Request body must be a JSON object, not {type(data).__name__}")
    if _containers_at_most(body) > MAX_BODY_DEPTH and (where := json_fields.too_deep(data, MAX_BODY_DEPTH)):
        raise errors.Invalid(
            f"{where} nests objects and arrays too deeply: a request body may hold at most {MAX_BODY_DEPTH} levels"
        )
    if (nonfinite or _may_hold_unstorable_text(body)) and (problem := _unstorable(data)):
        raise errors.Invalid(problem)
    return data


async def _body(request: web.Request, max_bytes: int | None) -> bytes:
    """The body, read up to `max_bytes` (the app's limit when None): a Content-Length above it is refused
    before anything is read, a chunked or compressed body as soon as it grows beyond it."""
    if max_bytes is None:
        return await request.read()
    if (request.content_length or 0) > max_bytes:
        raise _too_large(max_bytes)
    try:
        return await request.clone(client_max_size=max_bytes).read()
    except web.HTTPRequestEntityTooLarge:
        raise _too_large(max_bytes) from None


def _too_large(max_bytes: int) -> errors.PayloadTooLarge:
    return errors.PayloadTooLarge(f"Request body is too large: the limit is {max_bytes} bytes")


def _values_at_most(body: bytes) -> int:
    """At least as many as the values parsing the body makes: each value but the first of an array or object
    follows a comma, and each array or object opens with a bracket (commas in text count too). Counting
    bytes is quick for any body; parsing millions of small values is not."""
    return body.count(b",") + body.count(b"[") + body.count(b"{") + 1


def _containers_at_most(body: bytes) -> int:
    """At most as many objects and arrays as the body holds (brackets in text count too): a body with few
    cannot nest deeply, and counting bytes is quicker than walking what parsing made."""
    return body.count(b"[") + body.count(b"{")


def _parsed(body: bytes) -> tuple[Any, bool]:
    """The JSON, and whether a number in it is not finite (NaN, Infinity, or beyond a float's range)."""
    nonfinite = False

    def number(text: str) -> float:
        nonlocal nonfinite
        value = float(text)
        nonfinite = nonfinite or not math.isfinite(value)
        return value

    try:
        data = json.loads(body, parse_float=number, parse_constant=number)
    except (ValueError, UnicodeDecodeError) as exc:
        raise errors.Invalid(f"JSON parse error: {exc}") from None
    except RecursionError:
        raise errors.Invalid("JSON parse error: nested too deeply") from None
    return data, nonfinite


def _may_hold_unstorable_text(body: bytes) -> bool:
    """Whether the body can carry a NUL or a lone surrogate: as an escape (\\u0000, \\ud800), as bytes beyond
    ASCII (json decodes UTF-8 with surrogatepass), or in a UTF-16 or UTF-32 body (NUL bytes). Only then
    is every string looked at."""
    return b"\\" in body or b"\x00" in body or not body.isascii()


def _unstorable(data: dict[str, Any]) -> str | None:
    """What the databases and the wire cannot hold, named by its path (`submitters[0].name`). Walked
    without recursion: JSON may nest deeper than the stack left to this function."""
    pending: list[tuple[str, Any]] = [("", data)]
    while pending:
        path, value = pending.pop()
        if isinstance(value, dict):
            if problem := next(filter(None, map(_text_problem, value)), None):
                return f"A key in {path or 'the request body'} {problem}"
            pending += [(_child(path, key), item) for key, item in reversed(value.items())]
        elif isinstance(value, list):
            pending += [(f"{path}[{index}]", value[index]) for index in reversed(range(len(value)))]
        elif isinstance(value, str) and (problem := _text_problem(value)):
            return f"{path} {problem}"
        elif isinstance(value, float) and not math.isfinite(value):
            return f"{path} must be a finite number (NaN, Infinity and numbers beyond 1.8e308 cannot be stored)"
    return None


def _text_problem(text: str) -> str | None:
    if "\x00" in text:  # Postgres cannot store it, so neither database does
        return "must not contain NUL characters (\\u0000)"
    if not text.isascii() and (surrogate := _SURROGATE.search(text)):
        return f"must be valid Unicode: it holds a lone surrogate (\\u{ord(surrogate.group()):04x})"
    return None


def _child(path: str, key: str) -> str:
    shown = key if len(key) <= _KEY_SHOWN else f"{key[:_KEY_SHOWN]}..."
    return f"{path}.{shown}" if path else shown
