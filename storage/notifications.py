"""Postgres notifications for every channel a process follows, on one dedicated connection that comes back
by itself when it drops (a Postgres restart, a network cut). Channel names on the wire start with a scope
(the schema), so that databases in other schemas of one Postgres database do not hear each other.

A connection that only listens never writes, so a cut that sends no reset (a firewall or a load balancer
dropping an idle connection) would leave it looking open while nothing reaches it: it answers a query every
few seconds, and counts as heard only while its last answer is recent."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

import asyncpg

from storage.database import Listener, StorageError

log = logging.getLogger(__name__)
RECONNECT_DELAYS = (0.1, 0.5, 1.0, 2.0, 5.0)
HEARTBEAT_SECONDS = 5.0
# Longer than this without an answer, the connection is not trusted to carry notifications.
SILENCE_SECONDS = 2 * HEARTBEAT_SECONDS + 1
_FAILURES = (asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.InternalClientError, OSError, asyncio.TimeoutError)


class Notifications:
    """LISTENs on one connection. While it is down (or silent) nothing is heard, so `connected` is False; once
    back, every listener is called, as for a notification it may have missed."""

    def __init__(self, url: str, scope: str) -> None:
        self._url, self._scope = url, scope
        self._conn: asyncpg.Connection | None = None
        self._listeners: dict[str, list[Listener]] = {}
        self._reconnecting: asyncio.Task[None] | None = None
        self._heartbeat: asyncio.Task[None] | None = None
        self._answered_at = 0.0
        self._closed = False
        self._connecting = asyncio.Lock()  # one (re)connection at a time; channels added meanwhile wait

    @property
    def connected(self) -> bool:
        return (
            self._conn is not None
            and not self._conn.is_closed()
            and time.monotonic() - self._answered_at < SILENCE_SECONDS
        )

    async def add(self, channel: str, listener: Listener) -> None:
        async with self._connecting:
            new_channel = channel not in self._listeners
            self._listeners.setdefault(channel, []).append(listener)
            if self._conn is None and self._reconnecting is None:
                await self._connect()
            elif new_channel and self._conn is not None and not self._conn.is_closed():
                try:
                    await self._conn.add_listener(self._scope + channel, self._dispatch)
                except _FAILURES as exc:
                    self._conn.terminate()  # it reconnects and listens on every channel, this one too
                    raise StorageError(f"cannot listen for notifications: {exc}") from exc

    def tell(self, channel: str) -> None:
        """Calls the channel's listeners now (a commit of this process: Postgres tells them again later)."""
        for listener in self._listeners.get(channel, ()):
            listener()

    async def close(self) -> None:
        self._closed = True
        for task in (self._reconnecting, self._heartbeat):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        async with self._connecting:
            if self._conn is not None:
                await self._conn.close()

    async def _connect(self) -> None:
        """Connects and listens on every channel (the caller holds `_connecting`)."""
        try:
            conn = await asyncpg.connect(self._url)
        except _FAILURES as exc:
            raise StorageError(f"cannot connect to Postgres for notifications: {exc}") from exc
        try:
            for channel in self._listeners:
                await conn.add_listener(self._scope + channel, self._dispatch)
        except _FAILURES as exc:
            conn.terminate()
            raise StorageError(f"cannot listen for notifications: {exc}") from exc
        conn.add_termination_listener(self._lost)
        self._conn, self._answered_at = conn, time.monotonic()
        if self._heartbeat is None:
            self._heartbeat = asyncio.get_running_loop().create_task(self._beat())

    def _dispatch(self, conn: Any, pid: int, channel: str, payload: str) -> None:
        self.tell(channel.removeprefix(self._scope))

    def _lost(self, conn: Any) -> None:
        if conn is not self._conn or self._closed:
            return
        log.warning("the Postgres notification connection dropped; reconnecting")
        self._conn = None
        self._reconnecting = asyncio.get_running_loop().create_task(self._reconnect())

    async def _beat(self) -> None:
        """Asks the connection for an answer every few seconds; one that does not come ends it (and so
        reconnects)."""
        while not self._closed:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            conn = self._conn
            if conn is None or conn.is_closed():
                continue
            try:
                async with self._connecting:  # never beside a LISTEN on the same connection
                    await asyncio.wait_for(conn.fetchval("SELECT 1"), HEARTBEAT_SECONDS)
                self._answered_at = time.monotonic()
            except _FAILURES:
                log.warning("the Postgres notification connection stopped answering")
                conn.terminate()

    async def _reconnect(self) -> None:
        attempt = 0
        while not self._closed:
            await asyncio.sleep(RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)])
            attempt += 1
            async with self._connecting:
                if self._closed:
                    return
                try:
                    await self._connect()
                except StorageError as exc:
                    log.debug("reconnecting for notifications failed: %s", exc)
                    continue
            self._reconnecting = None
            log.warning("the Postgres notification connection is back")
            for listeners in list(self._listeners.values()):
                for listener in listeners:
                    listener()
            return
