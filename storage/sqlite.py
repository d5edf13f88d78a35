"""SQLite backend (aiosqlite): one connection, WAL, every transaction `BEGIN IMMEDIATE`.

SQLite allows one writer at a time, so one connection serves the process and an asyncio lock
keeps transactions whole; point reads are short and queue behind them. Datetimes are stored as
fixed-width ISO 8601 text in UTC so that they compare correctly as text.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import aiosqlite

from storage.database import RECORDS, Connection, ConnectionUse, Database, Listener, Row, StorageError
from storage.queries import Queries
from storage.rows import json_time

_QUERIES = Queries.load("sqlite")


def _adapt(value: Any) -> Any:
    if isinstance(value, datetime):
        return json_time(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return value


def _row(cursor: sqlite3.Cursor, values: tuple[Any, ...]) -> Row:
    """A row as a dict by column name, made as SQLite hands it over (a third of the time of `dict(sqlite3.Row)`)."""
    return dict(zip([column[0] for column in cursor.description], values, strict=True))


class _Session(Connection):
    """The shared connection as seen by one transaction, or by one autocommit statement."""

    def __init__(self, db: SQLiteDatabase) -> None:
        self.queries = _QUERIES
        self._db = db
        self.channels: set[str] = set()

    async def fetch_all(self, query: str, **params: Any) -> list[Row]:
        self._db.statements += 1
        return await self._db._run(self.queries[query], params)

    async def run_script(self, sql: str) -> None:
        for statement in split_statements(sql):
            await self._db._run(statement, {})

    async def notify(self, channel: str) -> None:
        self.channels.add(channel)


class SQLiteDatabase(Database):
    dialect = "sqlite"

    def __init__(self, conn: aiosqlite.Connection, path: str, *, single_process: bool = True) -> None:
        self.queries = _QUERIES
        self.path, self.single_process = path, single_process
        self._conn = conn
        self._lock = asyncio.Lock()
        self._listeners: dict[str, list[Listener]] = {}
        self._watcher: sqlite3.Connection | None = None
        self._data_version = -1
        self._counters: dict[str, int] = {}
        # The loop in whose turn data_version was read, until that turn ends; this process's writes by then.
        self._version_loop: asyncio.AbstractEventLoop | None = None
        self._version_writes = 0
        # Commits and autocommit writes of this process: what a database in memory (this process's alone) has.
        self._writes = 0
        self.statements = 0

    @classmethod
    async def open(cls, path: str, *, single_process: bool = True) -> SQLiteDatabase:
        """`single_process=False` when several processes share the file (`run.py --workers`)."""
        if path == ":memory:" and not single_process:
            raise ValueError("a SQLite database in memory belongs to one process")
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = await aiosqlite.connect(path, isolation_level=None)
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open SQLite database {path!r}: {exc}") from exc
        conn.row_factory = _row  # type: ignore[assignment]  # aiosqlite types it as a class; sqlite3 takes any callable
        for pragma in ("journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON", "busy_timeout = 5000"):
            await conn.execute(f"PRAGMA {pragma}")
        return cls(conn, path, single_process=single_process)

    async def _run(self, sql: str, params: dict[str, Any]) -> list[Row]:
        try:
            rows = await self._conn.execute_fetchall(sql, {k: _adapt(v) for k, v in params.items()})
        except (sqlite3.Error, ValueError) as exc:  # aiosqlite raises ValueError once closed
            raise StorageError(str(exc)) from exc
        return cast(list[Row], rows)  # the list of the dicts `_row` made

    async def fetch_all(self, query: str, **params: Any) -> list[Row]:
        self.statements += 1
        async with self._lock:
            rows = await self._run(self.queries[query], params)
        if query in self.queries.writing:
            self._writes += 1
        return rows

    async def run_script(self, sql: str) -> None:
        """The script in one transaction, sent to the connection's thread at once (`executescript`: its statements
        one after another there, not one trip each; it commits a transaction under way first, hence not within
        `transaction()`)."""
        async with self._lock:
            try:
                await self._conn.executescript(f"BEGIN IMMEDIATE;\n{sql}\n;\nCOMMIT;")
            except (sqlite3.Error, ValueError) as exc:  # aiosqlite raises ValueError once closed
                if self._conn.in_transaction:
                    await self._conn.execute("ROLLBACK")
                raise StorageError(str(exc)) from exc

    async def notify(self, channel: str) -> None:
        self._wake(channel)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Connection]:
        session = _Session(self)
        async with self._lock:
            await self._run("BEGIN IMMEDIATE", {})
            try:
                yield session
            except BaseException:
                await self._run("ROLLBACK", {})
                raise
            await self._run("COMMIT", {})
            self._writes += 1
        for channel in session.channels:
            self._wake(channel)

    @asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        if self.single_process:  # each migration step is its own BEGIN IMMEDIATE
            yield
            return
        with open(f"{self.path}.lock", "a") as lock:
            await asyncio.to_thread(fcntl.flock, lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    async def listen(self, channel: str, listener: Listener) -> None:
        self._listeners.setdefault(channel, []).append(listener)

    async def watch(self, channel: str) -> None:
        """A second, read-only connection reads the change counters (kept by triggers): a database in memory has
        no second connection, so it cannot tell, but for RECORDS (it is this process's, which counts its writes)."""
        if self._watcher is None and self.path != ":memory:":
            self._watcher = sqlite3.connect(self.path, timeout=0.1, isolation_level=None, check_same_thread=False)
            self._watcher.execute("PRAGMA query_only = ON")

    def generation(self, channel: str) -> int | None:
        # data_version reads the WAL index, and only after another connection (in any process, this one's
        # aiosqlite connection included) committed are the counters read again. RECORDS is data_version itself:
        # every commit moves it.
        if self._watcher is None:
            return self._writes if channel == RECORDS and self.path == ":memory:" else None
        try:
            version = self._data_version if self._version_current() else self._read_version(self._watcher)
        except sqlite3.Error:
            return None
        return version if channel == RECORDS else self._counters.get(channel)

    def _version_current(self) -> bool:
        """Whether the data_version read last may still be answered: in the same turn of the event loop, and no
        commit of this process's since.

        Safe as reading it again: the read schedules `_turn_ends` (call_soon), which the loop runs before anything
        scheduled after the read, so whatever uses the kept version was scheduled before it was read, and so was
        what woke it (a request's bytes, a statement's result, a timer): a commit of another process that anyone
        could have known of when that was scheduled had happened before the read. This process's commits are
        counted (`_writes`) as they return, and any of them since the read has it read again."""
        if self._version_loop is None or self._version_writes != self._writes:
            return False
        try:
            return asyncio.get_running_loop() is self._version_loop
        except RuntimeError:
            return False

    def _read_version(self, watcher: sqlite3.Connection) -> int:
        version: int = watcher.execute("PRAGMA data_version").fetchone()[0]
        if version != self._data_version:
            self._counters = dict(watcher.execute("SELECT channel, counter FROM change_counters"))
            self._data_version = version
        self._version_writes = self._writes
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # outside a loop nothing is kept
            return version
        if self._version_loop is not loop:
            self._version_loop = loop
            loop.call_soon(self._turn_ends)
        return version

    def _turn_ends(self) -> None:
        self._version_loop = None

    def connection_use(self) -> ConnectionUse:
        # The one connection statements use is busy while its lock is held (the watcher only reads a counter).
        return ConnectionUse(open=1, in_use=int(self._lock.locked()), limit=1)

    def _wake(self, channel: str) -> None:
        for listener in self._listeners.get(channel, ()):
            listener()

    async def close(self) -> None:
        if self._watcher is not None:
            self._watcher.close()
        await self._conn.close()


def split_statements(sql: str) -> list[str]:
    """The complete statements of a script, as SQLite itself delimits them (triggers included)."""
    statements, pending = [], ""
    for line in sql.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    leftover = [line for line in pending.splitlines() if line.strip() and not line.strip().startswith("--")]
    if leftover:
        raise ValueError(f"incomplete SQL statement at the end of the script: {pending.strip()[:80]!r}")
    return statements
