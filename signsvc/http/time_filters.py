"""Time range filters of list endpoints (`created_at_from`/`_to` and the like).

A bound is a date (`2026-05-01`) or an ISO 8601 timestamp, in UTC unless it names its offset.
The lower bound is inclusive; so is the upper one, and an upper date covers that whole day.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from signsvc.http.params import Query
from signsvc.infra import errors, json_fields


@dataclass(frozen=True)
class Range:
    start: datetime | None = None
    end: datetime | None = None  # exclusive

    @classmethod
    def from_query(cls, query: Query, lower: str, upper: str) -> Range:
        start, end = query.string(lower), query.string(upper)
        return cls(_moment(start, lower) if start else None, _end(end, upper) if end else None)


def _moment(text: str, name: str) -> datetime:
    try:
        return json_fields.utc_moment(text)
    except (ValueError, OverflowError):
        raise errors.Invalid(f"{name} must be a date (2026-05-01) or an ISO 8601 timestamp") from None


def _end(text: str, name: str) -> datetime:
    """The first moment after the bound: the next day for a date, the next microsecond for a time
    (at most the last moment there is: a bound still excludes records without that time)."""
    try:
        return _moment(text, name) + (timedelta(days=1) if _is_date(text) else timedelta(microseconds=1))
    except OverflowError:
        return datetime.max.replace(tzinfo=UTC)


def _is_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True
