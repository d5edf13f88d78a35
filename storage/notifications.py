"""Postgres notifications for every channel a process follows, on one dedicated connection that comes back
by itself when it drops (a Postgres restart, a network cut). Channel names on the wire start with a scope
(the schema), so that databases in other schemas of one Postgres database do not hear each other."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import asyncpg

from storage.database import Listener

log = logging.getLogger(__name__)
RECONNECT_DELAYS = (0.1, 0.5, 1.0, 2.0, 5.0)


class Notifications:
    """LISTENs on one connection. While it is down nothing is heard, so `connected` is False; once back,
    every listener is called, as for a notification it may have missed."""

    def __init__(self, url: str, scope: str) -> None:
        self._url, self._scope = url, scope
        self._conn: asyncpg.Connection | None = None
        self._listeners: dict[str, list[Listener]] = {}
        self._reconnecting: asyncio.Task[None] | None = None
        self._closed = False
        self._adding = asyncio.Lock()

    @property
    def connected(self) -> bool:
        return self._conn is not None and not self._conn.is_closed()

    async def add(self, channel: str, listener: Listener) -> None:
        async with self._adding:
            new_channel = channel not in self._listeners
            self._listeners.setdefault(channel, []).append(listener)
            if self._conn is None and self._reconnecting is None:
                self._conn = await self._connect()
            elif new_channel and self._conn is not None and self.connected:
                await self._conn.add_listener(self._scope + channel, self._dispatch)

    async def close(self) -> None:
        self._closed = True
        if self._reconnecting is not None:
            self._reconnecting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reconnecting
        if self._conn is not None:
            await self._conn.close()

    async def _connect(self) -> asyncpg.Connection:
        conn = await asyncpg.connect(self._url)
        for channel in list(self._listeners):
            await conn.add_listener(self._scope + channel, self._dispatch)
        conn.add_termination_listener(self._lost)
        return conn

    def tell(self, channel: str) -> None:
        """Calls the channel's listeners now (a commit of this process: Postgres tells them again later)."""
        for listener in self._listeners.get(channel, ()):
            listener()

    def _dispatch(self, conn: Any, pid: int, channel: str, payload: str) -> None:
        self.tell(channel.removeprefix(self._scope))

    def _lost(self, conn: Any) -> None:
        if conn is not self._conn or self._closed:
            return
        log.warning("the Postgres notification connection dropped; reconnecting")
        self._conn = None
        self._reconnecting = asyncio.get_running_loop().create_task(self._reconnect())

    async def _reconnect(self) -> None:
        attempt = 0
        while not self._closed:
            await asyncio.sleep(RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)])
            attempt += 1
            try:
                self._conn = await self._connect()
            except (asyncpg.PostgresError, OSError) as exc:
                log.debug("reconnecting for notifications failed: %s", exc)
                continue
            self._reconnecting = None
            log.warning("the Postgres notification connection is back")
            for listeners in list(self._listeners.values()):
                for listener in listeners:
                    listener()
            return
