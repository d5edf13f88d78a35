"""The events feed: completed submitters, latest first, for catching up
after a webhook outage.

`after` and `before` are Unix seconds, so a page never ends inside a second: when the submitters
completed in its last second go on beyond `limit`, that second moves whole to the next page (or,
when it alone fills the page, the page holds all of it). `next` is then the last second shown and
`after=next` starts right below it; `prev` is the first second shown and `before=prev` starts right
above it. A client walking the feed either way misses nothing and sees nothing twice.

Any integer is a bound: one beyond the times a timestamp holds (years 1 to 9999) bounds nothing on the
side it opens and everything on the other, so a far future `after` is the whole feed and a far future
`before` an empty page.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import storage.submissions as stored
from storage import Connection
from storage.records import Submitter

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
FIRST_SECOND = -62_135_596_800  # 0001-01-01T00:00:00Z
LAST_SECOND = 253_402_300_799  # 9999-12-31T23:59:59Z


@dataclass(frozen=True)
class FeedPage:
    submitters: list[Submitter]
    next: int | None
    prev: int | None


async def form_completed(
    conn: Connection, account_id: int, *, limit: int, after: int | None, before: int | None
) -> FeedPage:
    """Submitters completed before `after` and in a second later than `before`, latest first."""
    bounds = _bounds(after, before)
    if bounds is None or limit <= 0:
        return FeedPage([], None, None)
    until, since = bounds
    found = await stored.completed_submitters(conn, account_id, until=until, since=since, limit=limit + 1)
    page = await _whole_seconds(conn, account_id, found, limit)
    if not page:
        return FeedPage([], None, None)
    return FeedPage(page, _second(page[-1]), _second(page[0]))


def _bounds(after: int | None, before: int | None) -> tuple[datetime | None, datetime | None] | None:
    """`(until, since)`: completed before `until` and from `since` on (None: no bound); None when no time
    a timestamp holds can match."""
    if (after is not None and after <= FIRST_SECOND) or (before is not None and before >= LAST_SECOND):
        return None
    until = _moment(after) if after is not None and after <= LAST_SECOND else None
    since = _moment(before + 1) if before is not None and before >= FIRST_SECOND else None
    return until, since


async def _whole_seconds(conn: Connection, account_id: int, found: list[Submitter], limit: int) -> list[Submitter]:
    if len(found) <= limit or _second(found[limit]) != _second(found[limit - 1]):
        return found[:limit]
    last = _second(found[limit - 1])
    earlier = [submitter for submitter in found[:limit] if _second(submitter) != last]
    if earlier:
        return earlier
    end = _moment(last + 1) if last < LAST_SECOND else datetime.max.replace(tzinfo=UTC)
    return await stored.completed_within(conn, account_id, _moment(last), end)


def _second(submitter: Submitter) -> int:
    """The Unix second the submitter completed in (the feed lists completed submitters only)."""
    return int(submitter.completed_at.timestamp() // 1) if submitter.completed_at else 0


def _moment(seconds: int) -> datetime:
    """The moment of a Unix second from FIRST_SECOND to LAST_SECOND, counted from the epoch rather than
    through the platform's time functions, which do not reach that whole range everywhere."""
    return EPOCH + timedelta(seconds=seconds)
