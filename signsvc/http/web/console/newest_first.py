"""Console lists a page at a time, newest first as the API lists them: a page's records and the `after` that
opens the next, older page (none on the last one)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from aiohttp import web

from storage.records import MAX_ID


class HasId(Protocol):
    @property
    def id(self) -> int: ...


R = TypeVar("R", bound=HasId)


@dataclass(frozen=True)
class Listing(Generic[R]):
    items: Sequence[R]
    after: int | None  # where this page starts (None: the newest records)
    older: int | None  # the `after` of the next older page, when there is one


def after(request: web.Request) -> int | None:
    """Where the page starts (`?after=`, the id the page is older than); the first page for anything else,
    as a link edited by hand deserves a page rather than an error."""
    value = request.query.get("after", "")
    if not (value.isascii() and value.isdigit() and len(value) <= len(str(MAX_ID))):
        return None
    return int(value) if 0 < int(value) <= MAX_ID else None


def listing(found: Sequence[R], limit: int, after: int | None) -> Listing[R]:
    """The page that starts at `after`, from `found`: read with one record more than `limit`, to know whether
    an older page follows."""
    return Listing(found[:limit], after, found[limit - 1].id if len(found) > limit else None)
