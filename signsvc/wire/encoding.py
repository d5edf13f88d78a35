"""The wire format's encoding: JSON with ISO 8601 UTC timestamps, milliseconds and `Z`."""

from __future__ import annotations

import json
import logging
import math
import re
from datetime import UTC, datetime
from typing import Any

import orjson

log = logging.getLogger(__name__)
# Datetimes and dataclasses are written by `_default`, as the standard library path writes them.
_ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_NON_STR_KEYS

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # in text json made: pairs are one character by then


def iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def encoded(data: Any) -> bytes:
    """JSON that any client reads, in UTF-8: orjson's (a tenth of the standard library's time). The API refuses
    what JSON and UTF-8 cannot carry, but a record stored before it did may hold some: a number that is not
    finite goes as null, and what orjson cannot write (a lone surrogate, an integer beyond 64 bits) goes the
    standard library's way (`dumps`)."""
    try:
        return orjson.dumps(data, default=_Times(), option=_ORJSON_OPTIONS)
    except orjson.JSONEncodeError:
        return dumps(data).encode()


def dumps(data: Any) -> str:
    """JSON that any client reads, as text, by the standard library: a number that is not finite goes as null, a
    lone surrogate as U+FFFD, each with a warning."""
    try:
        text = _dumps(data)
    except ValueError:  # NaN or Infinity
        log.warning("a record holds a number that is not finite: sent as null")
        text = _dumps(_finite(data))
    if text.isascii():
        return text
    text, repaired = _LONE_SURROGATE.subn("\ufffd", text)
    if repaired:
        log.warning("a record holds text with a lone surrogate: sent as U+FFFD")
    return text


def _dumps(data: Any) -> str:
    return json.dumps(data, default=_default, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _finite(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return None if isinstance(value, float) and not math.isfinite(value) else value


class _Times:
    """orjson's `default` for one answer: each time written once, however many times the answer shows it (a page
    shows its template's times on every item, a submission's creation time on its submitters)."""

    def __init__(self) -> None:
        self._written: dict[datetime, str | None] = {}

    def __call__(self, value: Any) -> Any:
        if not isinstance(value, datetime) or value.tzinfo is not UTC:  # equal times in UTC are equal texts
            return _default(value)
        if value not in self._written:
            self._written[value] = iso(value)
        return self._written[value]


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return iso(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")
