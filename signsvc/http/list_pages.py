"""List pages answered again from memory while nothing they show can have changed.

Clients poll lists (an integration suite waiting for a status, a dashboard, several workers): the same page asked
again and again, each time read from the database and written as JSON again. A page answered is kept for the
rest of the second of the service clock it was made in, and only while the database's RECORDS generation stays
the one read before it was made; a commit that may change a record it shows, in any process, moves that
generation. Within one second and one generation a page is the same bytes: its links expire to the second,
and a status that turns by itself (a submission's expiry) is never kept through the second in which it turns.
Where the database cannot tell (its generation is None: the Postgres notification connection down), nothing
is kept.

The one window: on Postgres, another process's commit is heard a moment after it commits (a notification), as
for the principals of API keys; this process's own commits are counted at once.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime
from typing import Any

from aiohttp import web

from signsvc.http.responses import encoded_response
from signsvc.infra.clock import Clock
from signsvc.wire.encoding import encoded
from storage import Database
from storage.database import RECORDS

# Pages of one second: a few hundred pages of 100 records. Beyond it, pages are answered but not kept.
MOST_BYTES = 32 * 1024 * 1024

# What a page's maker answers: the page's JSON data, and the moments at which what it shows turns by itself.
Made = tuple[Any, Iterable[datetime | None]]
Maker = Callable[[datetime], Awaitable[Made]]


class ListPages:
    def __init__(self, db: Database, clock: Clock) -> None:
        self.db, self.clock = db, clock
        self._watching = False
        self._kept_at: tuple[int, int | None] = (0, None)  # the second and generation of the pages kept
        self._pages: dict[tuple[int, str], bytes] = {}
        self._making: dict[tuple[tuple[int, str], tuple[int, int | None]], asyncio.Future[bytes]] = {}
        self._bytes = 0

    async def answer(self, request: web.Request, account_id: int, make: Maker) -> web.Response:
        """The page the request asks for, of the account: kept, or made by `make(now)`."""
        if not self._watching:
            await self.db.watch(RECORDS)
            self._watching = True
        now = self.clock.now()
        at = (math.floor(now.timestamp()), self.db.generation(RECORDS))
        if at != self._kept_at:
            self._pages.clear()
            self._bytes, self._kept_at = 0, at
        key = (account_id, request.path_qs)
        body = self._pages.get(key)
        if body is None:
            # Requests that ask for a page being made at the same second and generation wait for it: a poll of
            # many clients makes it once.
            making = self._making.get((key, at))
            if making is None:
                making = self._making[key, at] = asyncio.ensure_future(self._make(key, at, now, make))
                making.add_done_callback(lambda done: self._made(key, at, done))
            body = await asyncio.shield(making)
        return encoded_response(body)

    async def _make(self, key: tuple[int, str], at: tuple[int, int | None], now: datetime, make: Maker) -> bytes:
        data, turns = await make(now)
        body = encoded(data)
        if self._keeps(at, turns, len(body)):
            self._pages[key] = body
            self._bytes += len(body)
        return body

    def _made(self, key: tuple[int, str], at: tuple[int, int | None], done: asyncio.Future[bytes]) -> None:
        self._making.pop((key, at), None)
        if not done.cancelled():
            done.exception()  # raised to every request that waited for it; none may be left to take it

    def _keeps(self, at: tuple[int, int | None], turns: Iterable[datetime | None], size: int) -> bool:
        """Whether a page made at `at` may be answered for the rest of its second: nothing changed while it was
        made (the generation, the second of the clock links were signed by), nothing it shows turns within the
        second, and there is room."""
        second, generation = at
        return (
            generation is not None
            and self._kept_at == at
            and self.db.generation(RECORDS) == generation
            and math.floor(self.clock.now().timestamp()) == second
            and not any(turn is not None and second <= turn.timestamp() < second + 1 for turn in turns)
            and self._bytes + size <= MOST_BYTES
        )
