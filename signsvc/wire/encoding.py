"""The wire format's encoding: JSON with ISO 8601 UTC timestamps, milliseconds and `Z`."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any


def iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def dumps(data: Any) -> str:
    return json.dumps(data, default=_default, ensure_ascii=False, separators=(",", ":"))


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return iso(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")
