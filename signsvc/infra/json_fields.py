"""Fields of a JSON request body: a value of the wrong type is a 422 that names the field."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from signsvc.infra import errors


def text(body: dict[str, Any], key: str, *, label: str | None = None, limit: int | None = None) -> str | None:
    """A string or null; `label` names the field in the message (default: the key)."""
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise errors.Invalid(f"{label or key} must be a string")
    if value is not None and limit is not None and len(value) > limit:
        raise errors.Invalid(f"{label or key} is too long: at most {limit} characters")
    return value


def flag(body: dict[str, Any], key: str, default: bool | None = None, *, label: str | None = None) -> bool:
    """A JSON boolean; absent or null gives `default`, and without a default it is required."""
    value = body.get(key)
    if value is None and default is not None:
        return default
    if not isinstance(value, bool):
        raise errors.Invalid(f"{label or key} must be true or false")
    return value


def utc_moment(text: str) -> datetime:
    """An ISO 8601 date or timestamp, also with a trailing "UTC" or "GMT", as UTC (a time without an
    offset is UTC). Raises ValueError or OverflowError for anything else."""
    moment = datetime.fromisoformat(re.sub(r"\s*(UTC|GMT)$", "", text.strip(), flags=re.IGNORECASE))
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)

