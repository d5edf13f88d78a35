"""Postgres backend (asyncpg): a connection pool; several processes may share the database.

Queries are written with `:name` parameters like every other dialect and renumbered to `$n`
once, when loaded. Cross-process wake-ups use LISTEN/NOTIFY on a dedicated connection (`storage.notifications`).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

from storage.database import RECORDS, Connection, ConnectionUse, Database, Listener, Row, StorageError
from storage.notifications import Notifications
from storage.queries import Queries
from storage.rows import from_json

_PARAM = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")
# Any fixed number: the advisory lock that serializes migrations and bootstrap across processes.
_EXCLUSIVE_LOCK_ID = 7_301_977_463


def numbered(sql: str) -> tuple[str, tuple[str, ...]]:
    """`:name` parameters turned into `$1..$n`, with the names in their order."""
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match.group(1) not in names:
            names.append(match.group(1))
        return f"${names.index(match.group(1)) + 1}"

    return _PARAM.sub(number, sql), tuple(names)


_QUERIES = Queries.load("postgres")
_NUMBERED = {name: numbered(sql) for name, sql in _QUERIES.items()}

# Postgres names (channels too) have at most 63 bytes: the schema, ':' and the longest channel name.
LONGEST_SCHEMA = 40
# InternalClientError: a connection whose server went away mid-exchange (a Postgres restart) refuses every use.
_FAILURES = (asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.InternalClientError, OSError)


async def _run(conn: Any, query: str, params: dict[str, Any]) -> list[Row]:
    sql, names = _NUMBERED.get(query) or numbered(_QUERIES[query])
    try:
        rows = await conn.fetch(sql, *(params[name] for name in names))
    except KeyError as exc:
        raise TypeError(f"query {query!r} needs parameter {exc.args[0]!r}") from None
    except _FAILURES as exc:
        if isinstance(exc, asyncpg.InternalClientError):
            conn.terminate()  # left mid-exchange by a dropped server: never usable again; the pool replaces it
        raise StorageError(str(exc)) from exc
    return [dict(row) for row in rows]


class _Transaction(Connection):
    def __init__(self, db: PostgresDatabase, conn: asyncpg.Connection, scope: str) -> None:
        self.queries = _QUERIES
        self._db, self._conn, self._scope = db, conn, scope
        self.channels: set[str] = set()

    async def fetch_all(self, query: str, **params: Any) -> list[Row]:
        self._db.statements += 1
        return await _run(self._conn, query, params)

    async def run_script(self, sql: str) -> None:
        await self._conn.execute(sql)

    async def notify(self, channel: str) -> None:
        await self._conn.execute("SELECT pg_notify($1, '')", self._scope + channel)
        self.channels.add(channel)

    async def fetch_notifying(self, query: str, channel: str, **params: Any) -> list[Row]:
        rows = await self.fetch_all(query, channel=self._scope + channel, **params)  # the query notifies
        if rows:
            self.channels.add(channel)
        return rows


async def _init_connection(conn: asyncpg.Connection) -> None:
    await conn.set_type_codec("jsonb", encoder=json.dumps, decoder=from_json, schema="pg_catalog")


async def _keep_session(conn: asyncpg.Connection) -> None:
    """Pool connections never change session state (no SET, no LISTEN, locks released), so the
    default reset, a round trip on every release, is skipped."""


class PostgresDatabase(Database):
    dialect = "postgres"
    single_process = False

    def __init__(self, pool: asyncpg.Pool, url: str, schema: str) -> None:
        self.queries = _QUERIES
        self._pool = pool
        # Channels are the schema's own: databases in other schemas of the same Postgres database (each
        # selected by `?search_path=`) hear nothing of this one.
        self._scope = f"{schema}:"
        self._notifications = Notifications(url, self._scope)
        self._generations: dict[str, int] = {}
        self._watching = asyncio.Lock()
        self.statements = 0

    @classmethod
    async def open(cls, url: str, *, max_size: int = 10) -> PostgresDatabase:
        try:
            pool = await asyncpg.create_pool(
                url, min_size=1, max_size=max_size, init=_init_connection, reset=_keep_session
            )
            schema = await pool.fetchval("SELECT current_schema()")
        except _FAILURES as exc:
            raise StorageError(f"cannot connect to Postgres: {exc}") from exc
        schema = schema or "public"
        if len(schema.encode()) > LONGEST_SCHEMA:
            await pool.close()
            raise StorageError(
                f"the schema name {schema!r} is too long: notification channels are named after it, "
                f"and Postgres leaves {LONGEST_SCHEMA} bytes of a channel name for it"
            )
        return cls(pool, url, schema)

    async def fetch_all(self, query: str, **params: Any) -> list[Row]:
        self.statements += 1
        try:
            async with self._pool.acquire() as conn:
                rows = await _run(conn, query, params)
        except _FAILURES as exc:
            raise StorageError(str(exc)) from exc
        if query in self.queries.writing:
            self._notifications.tell(RECORDS)
        return rows

    async def run_script(self, sql: str) -> None:
        async with self.transaction() as tx:
            await tx.run_script(sql)

    async def notify(self, channel: str) -> None:
        async with self.transaction() as tx:
            await tx.notify(channel)

    async def fetch_notifying(self, query: str, channel: str, **params: Any) -> list[Row]:
        async with self.transaction() as tx:
            return await tx.fetch_notifying(query, channel, **params)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Connection]:
        try:
            async with self._pool.acquire() as conn:
                try:
                    async with conn.transaction():
                        tx = _Transaction(self, conn, self._scope)
                        yield tx
                except asyncpg.InternalClientError:
                    conn.terminate()  # as in _run: never back into the pool
                    raise
        except _FAILURES as exc:
            raise StorageError(str(exc)) from exc
        # This process's listeners hear at once what it committed; other processes' hear it from Postgres. RECORDS
        # is notified by triggers, which this process learns of only from Postgres, later: any commit counts.
        for channel in tx.channels | {RECORDS}:
            self._notifications.tell(channel)

    @asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        async with self._pool.acquire() as conn:
            await conn.execute("SELECT pg_advisory_lock($1)", _EXCLUSIVE_LOCK_ID)
            try:
                yield
            finally:
                await conn.execute("SELECT pg_advisory_unlock($1)", _EXCLUSIVE_LOCK_ID)

    async def listen(self, channel: str, listener: Listener) -> None:
        await self._notifications.add(channel, listener)

    async def watch(self, channel: str) -> None:
        async with self._watching:  # a generation is answered only once the channel is listened to
            if channel not in self._generations:
                await self.listen(channel, lambda: self._count(channel))
                self._generations.setdefault(channel, 0)

    def generation(self, channel: str) -> int | None:
        return self._generations.get(channel) if self._notifications.connected else None

    def _count(self, channel: str) -> None:
        self._generations[channel] = self._generations.get(channel, 0) + 1

    def connection_use(self) -> ConnectionUse:
        # The pool's connections; the notification connection is not one of them.
        size = self._pool.get_size()
        return ConnectionUse(open=size, in_use=size - self._pool.get_idle_size(), limit=self._pool.get_max_size())

    async def close(self) -> None:
        await self._notifications.close()
        await self._pool.close()
