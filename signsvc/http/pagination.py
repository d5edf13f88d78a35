"""List pages: newest first, `after` older, `before` newer."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from signsvc.http.params import Query

DEFAULT_LIMIT = 10
MAX_LIMIT = 100
_LEADING_INTEGER = re.compile(r"[+-]?\d+(?:_\d+)*")


@dataclass(frozen=True)
class Page:
    limit: int = DEFAULT_LIMIT
    after: int | None = None
    before: int | None = None

    @classmethod
    def from_query(cls, query: Query) -> Page:
        return cls(limit=limit(query.string("limit")), after=query.integer("after"), before=query.integer("before"))


def limit(text: str | None) -> int:
    """The page size, never refused, so a client that asks for too much gets the most there is: unset is
    the default; above the maximum is the maximum; text reads as the integer it starts with (`20abc` is
    20, `1.5` is 1) and as 0 when it starts with none (`abc`); 0 and negative numbers give an empty page."""
    if text is None:
        return DEFAULT_LIMIT
    found = _LEADING_INTEGER.match(text)
    number = int(found.group().replace("_", "")) if found else 0
    return max(0, min(number, MAX_LIMIT))


def paginated(items: Sequence[Any], serialize: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """`{data, pagination: {count, next, prev}}`: next is the oldest id on the page, prev the newest."""
    return {
        "data": [serialize(item) for item in items],
        "pagination": {
            "count": len(items),
            "next": items[-1].id if items else None,
            "prev": items[0].id if items else None,
        },
    }
