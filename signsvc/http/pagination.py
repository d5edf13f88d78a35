"""List pages: newest first, `after` older, `before` newer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from signsvc.http.params import Query

DEFAULT_LIMIT = 10
MAX_LIMIT = 100


@dataclass(frozen=True)
class Page:
    limit: int = DEFAULT_LIMIT
    after: int | None = None
    before: int | None = None

    @classmethod
    def from_query(cls, query: Query) -> Page:
        limit = query.integer("limit", minimum=1, maximum=MAX_LIMIT)
        return cls(limit=DEFAULT_LIMIT if limit is None else limit, after=query.integer("after"),
                   before=query.integer("before"))


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
