"""The events feed: completed submitters, latest first, for catching up
after a webhook outage.

`after` and `before` are Unix seconds, so a page never ends inside a second: when the submitters
completed in its last second go on beyond `limit`, that second moves whole to the next page (or,
when it alone fills the page, the page holds all of it). `next` is then the last second shown and
`after=next` starts right below it; `prev` is the first second shown and `before=prev` starts right
above it. A client walking the feed either way misses nothing and sees nothing twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import storage.submissions as stored
from storage import Connection
from storage.records import Submitter

SECOND = timedelta(seconds=1)


@dataclass(frozen=True)
class FeedPage:
    submitters: list[Submitter]
    next: int | None
    prev: int | None


async def form_completed(conn: Connection, account_id: int, *, limit: int, after: int | None,
                         before: int | None) -> FeedPage:
    """Submitters completed before `after` and in a second later than `before`, latest first."""
    if limit <= 0:
        return FeedPage([], None, None)
    found = await stored.completed_submitters(conn, account_id, until=_moment(after) if after is not None else None,
                                              since=_moment(before + 1) if before is not None else None,
                                              limit=limit + 1)
    page = await _whole_seconds(conn, account_id, found, limit)
    if not page:
        return FeedPage([], None, None)
    return FeedPage(page, _second(page[-1]), _second(page[0]))


async def _whole_seconds(conn: Connection, account_id: int, found: list[Submitter], limit: int) -> list[Submitter]:
    if len(found) <= limit or _second(found[limit]) != _second(found[limit - 1]):
        return found[:limit]
    last = _second(found[limit - 1])
    earlier = [submitter for submitter in found[:limit] if _second(submitter) != last]
    if earlier:
        return earlier
    return await stored.completed_within(conn, account_id, _moment(last), _moment(last) + SECOND)


def _second(submitter: Submitter) -> int:
    """The Unix second the submitter completed in (the feed lists completed submitters only)."""
    return int(submitter.completed_at.timestamp() // 1) if submitter.completed_at else 0


def _moment(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)
