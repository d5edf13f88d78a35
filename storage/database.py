"""The driver boundary: the handful of operations every storage backend provides.

SQL never appears above this package as text: callers name a query from `storage/queries/*.sql`
and pass its parameters by name. Dialect differences live in the two drivers and in the
per-dialect query overrides, nowhere else.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from storage.queries import Queries

Row = dict[str, Any]
Listener = Callable[[], None]
# The channel of the records the API shows (submissions, submitters, templates, their documents, events and
# authors...): its generation moves with every commit that may have changed one of them, in any process. A
# backend may move it more often (SQLite moves it with every commit), never less.
RECORDS = "records"


class StorageError(Exception):
    """The database could not be reached or refused an operation."""


@dataclass(frozen=True)
class ConnectionUse:
    """The connections a database holds for statements now, how many of them one is using, and the most it opens."""

    open: int
    in_use: int
    limit: int


class Connection(abc.ABC):
    """Runs named queries; inside a transaction when it came from `Database.transaction()`."""

    queries: Queries

    @abc.abstractmethod
    async def fetch_all(self, query: str, **params: Any) -> list[Row]:
        """All rows of the named query."""

    async def fetch_one(self, query: str, **params: Any) -> Row | None:
        """The first row of the named query, or None."""
        rows = await self.fetch_all(query, **params)
        return rows[0] if rows else None

    async def fetch_value(self, query: str, column: str, **params: Any) -> Any:
        """A column of the row a query always answers (a count, a generated id)."""
        row = await self.fetch_one(query, **params)
        if row is None:
            raise StorageError(f"query {query} answered no row")
        return row[column]

    async def execute(self, query: str, **params: Any) -> None:
        """Runs the named query for its effect."""
        await self.fetch_all(query, **params)

    @abc.abstractmethod
    async def run_script(self, sql: str) -> None:
        """Runs several statements of trusted SQL (a migration file)."""

    @abc.abstractmethod
    async def notify(self, channel: str) -> None:
        """Wakes every listener of `channel`, in every process, once this transaction commits."""

    async def fetch_notifying(self, query: str, channel: str, **params: Any) -> list[Row]:
        """All rows of the named query, and when it answered any, `notify(channel)`. A dialect whose query notifies
        by itself (Postgres: `pg_notify(:channel, '')` for each row it answers) saves the round trip of a
        separate notification."""
        rows = await self.fetch_all(query, **params)
        if rows:
            await self.notify(channel)
        return rows


class Database(Connection):
    """A pool of connections to one database; statements outside a transaction autocommit."""

    dialect: str
    # The named queries run so far, in transactions or not: the statements the code asks for, counted alike on
    # both backends (not a migration's script, a notification, a transaction's BEGIN and COMMIT, nor what the
    # notification and watcher connections ask). Tests read it before and after a request.
    statements: int = 0
    # True when only one process may use the database (SQLite): work left running at start
    # belongs to a dead process and can be taken back at once.
    single_process: bool

    @abc.abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[Connection]:
        """One transaction: commits on normal exit, rolls back on an exception."""

    @abc.abstractmethod
    def exclusive(self) -> AbstractAsyncContextManager[None]:
        """Held by one process at a time across the database (schema migration, bootstrap)."""

    @abc.abstractmethod
    async def listen(self, channel: str, listener: Listener) -> None:
        """Calls `listener` after each commit that notified `channel`."""

    async def watch(self, channel: str) -> None:
        """Starts following `channel` for `generation`; a database that cannot follow it keeps answering None."""

    def generation(self, channel: str) -> int | None:
        """A number that changes with every commit, in any process, that changed what `channel` guards
        (since `watch`). A copy of what it guards is good while the number stays the one read before reading
        the copy. None when the database cannot tell: then no copy may be trusted."""
        return None

    @abc.abstractmethod
    def connection_use(self) -> ConnectionUse:
        """The connections held and in use now (for the metrics)."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Closes every connection."""

    async def ping(self) -> None:
        """Raises StorageError unless the database answers a query."""
        await self.fetch_all("ping")
