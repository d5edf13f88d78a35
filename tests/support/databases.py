"""The two backends every database test runs on: SQLite files and Postgres schemas.

Postgres runs when `SIGNSVC_TEST_POSTGRES_URL` names a server (CI sets it); each test gets a schema of
its own, so tests in parallel workers never see each other's rows. A configured server that can't be
reached fails the run; it is never skipped.

Most tests migrate their database first (the API tier's `db`). Building the schema is most of what such a
test costs on Postgres (some fifty DDL statements, then DROP SCHEMA), so those tests get a database that
was migrated before instead (`Migrated`): on SQLite a copy of a file migrated once per test process; on
Postgres one of two schemas per test process, used in turn, each emptied in the background once the test
that used it is over. Emptied means what a fresh migrated schema is: no rows, identity sequences at their
start, the tables truncated (new files, so rows come back in the order they were written), never analyzed,
and the same definitions and migrations as when it was built; a schema that differs in any of these is
dropped, and another one built.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import threading
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from yarl import URL

from storage import Database
from storage.migrations import migrate
from storage.postgres import PostgresDatabase
from storage.sqlite import SQLiteDatabase

POSTGRES_URL = os.environ.get("SIGNSVC_TEST_POSTGRES_URL")
NO_POSTGRES = "SIGNSVC_TEST_POSTGRES_URL is not set: Postgres tests skipped"
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.skipif(not POSTGRES_URL, reason=NO_POSTGRES))]


def postgres_url(schema: str) -> str:
    """The test database URL with its own schema, so every test starts empty."""
    return str(URL(POSTGRES_URL).update_query(search_path=schema))


class PostgresSchema:
    """A throwaway schema in the test database; connection failures fail the run, never skip it."""

    def __init__(self) -> None:
        self.name = f"t_{uuid.uuid4().hex[:12]}"
        self.url = postgres_url(self.name)

    async def __aenter__(self) -> PostgresSchema:
        conn = await asyncpg.connect(POSTGRES_URL)
        await conn.execute(f"CREATE SCHEMA {self.name}")
        await conn.close()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        conn = await asyncpg.connect(POSTGRES_URL)
        await conn.execute(f"DROP SCHEMA {self.name} CASCADE")
        await conn.close()


async def open_db(url: str) -> Database:
    if url.startswith("sqlite:///"):
        return await SQLiteDatabase.open(url.removeprefix("sqlite:///"))
    return await PostgresDatabase.open(url)


# What a test could change in the definition of the migrated schema, found through the catalogs' indexes
# (a scan of pg_class would read every schema of the database): the objects in the schema (its tables, views,
# sequences, types, routines), and the catalog rows of its relations and of what hangs on them (columns,
# defaults, constraints, indexes, triggers, rules, sequence options). Whole rows, but for pg_class's, whose
# file, size and statistics change with TRUNCATE and VACUUM; then the migrations the schema records.
_DEFINITION = """
SELECT md5(string_agg(item, E'\\n' ORDER BY item COLLATE "C")) FROM (
    SELECT concat_ws(' ', 'object', classid, objid, objsubid, deptype) FROM pg_depend
     WHERE refclassid = 'pg_namespace'::regclass AND refobjid = $1
    UNION ALL
    SELECT concat_ws(' ', 'relation', oid, relname, relnamespace, reltype, relowner, relkind, relpersistence,
                     relnatts, relchecks, relhasrules, relhastriggers, relrowsecurity, relforcerowsecurity,
                     relreplident, relispartition, reloptions, relacl)
      FROM pg_class WHERE oid = ANY ($2::oid[])
    UNION ALL
    SELECT 'attribute ' || a::text FROM pg_attribute a WHERE attrelid = ANY ($2::oid[])
    UNION ALL
    SELECT 'default ' || d::text FROM pg_attrdef d WHERE adrelid = ANY ($2::oid[])
    UNION ALL
    SELECT 'constraint ' || c::text FROM pg_constraint c WHERE conrelid = ANY ($2::oid[])
    UNION ALL
    SELECT 'index ' || i::text FROM pg_index i WHERE indrelid = ANY ($2::oid[])
    UNION ALL
    SELECT 'trigger ' || t::text FROM pg_trigger t WHERE tgrelid = ANY ($2::oid[])
    UNION ALL
    SELECT 'rule ' || r::text FROM pg_rewrite r WHERE ev_class = ANY ($2::oid[])
    UNION ALL
    SELECT 'sequence ' || s::text FROM pg_sequence s WHERE seqrelid = ANY ($2::oid[])
    UNION ALL
    SELECT concat_ws(' ', 'migration', version, name) FROM {schema}.schema_migrations
) AS items (item)
"""

# The relations of a schema (tables, indexes, sequences, views), each with the table it is, or whose index or
# identity sequence it is.
_RELATIONS = """
SELECT c.oid, c.relkind::text AS relkind,
       CASE c.relkind WHEN 'r' THEN c.relname WHEN 'i' THEN t.relname ELSE s.relname END AS table_name
  FROM pg_class c
  LEFT JOIN pg_index i ON i.indexrelid = c.oid
  LEFT JOIN pg_class t ON t.oid = i.indrelid
  LEFT JOIN pg_depend d ON c.relkind = 'S' AND d.classid = 'pg_class'::regclass AND d.objid = c.oid
                       AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
  LEFT JOIN pg_class s ON s.oid = d.refobjid
 WHERE c.relnamespace = $1
"""

# A table's file (empty until a row is written, even one deleted or rolled back since) and what the planner
# takes from pg_class for it: TRUNCATE makes both what CREATE TABLE did (no pages, no tuple count yet);
# writes, VACUUM and ANALYZE change them.
_SIZES = """
SELECT oid, array[pg_relation_size(oid)::float8, relpages::float8, reltuples::float8, relallvisible::float8] AS size
  FROM pg_class WHERE oid = ANY ($1::oid[])
"""


def _identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class _Schema:
    """A migrated schema, and what it was like once migrated."""

    def __init__(self) -> None:
        self.name = f"t_{uuid.uuid4().hex[:12]}"
        self.namespace = 0  # the schema's oid
        self.relations: list[int] = []  # the oids of its tables, indexes, sequences and views
        self.table_of: dict[int, str] = {}  # relation: the table it is or whose index or identity sequence it is
        self.sequences: list[int] = []
        self.sizes: dict[int, list[float]] = {}  # table: its file's size and its size for the planner, as migrated
        self.definition = ""

    async def build(self, conn: asyncpg.Connection) -> None:
        await conn.execute(f"CREATE SCHEMA {self.name}")
        db = await open_db(postgres_url(self.name))
        try:
            await migrate(db)
        finally:
            await db.close()
        self.namespace = await conn.fetchval("SELECT $1::regnamespace::oid", self.name)
        rows = await conn.fetch(_RELATIONS, self.namespace)
        self.relations = [row["oid"] for row in rows]
        self.table_of = {
            row["oid"]: row["table_name"] for row in rows if row["table_name"] not in (None, "schema_migrations")
        }
        self.sequences = [row["oid"] for row in rows if row["relkind"] == "S"]
        tables = [row["oid"] for row in rows if row["relkind"] == "r"]
        self.sizes = {row["oid"]: row["size"] for row in await conn.fetch(_SIZES, tables)}
        self.definition = await self._definition(conn)

    async def _definition(self, conn: asyncpg.Connection) -> str:
        return await conn.fetchval(_DEFINITION.format(schema=self.name), self.namespace, self.relations)

    async def empty(self, conn: asyncpg.Connection) -> bool:
        """Empties the schema as a fresh migrated one is; False when it can't be: its definition or the
        migrations it records changed, it has statistics, a sequence no table owns was used, or a connection
        a test left open holds a lock.

        A table is truncated when a row was written to it (its file is no longer empty), its identity
        sequence was used, or the size the planner assumes for it changed (VACUUM); TRUNCATE resets all
        three, for the tables whose foreign keys point at it too (CASCADE). Their indexes get new empty
        files too, though pg_class then counts them as never built (0 pages) where CREATE INDEX counted
        one page: the planner reads that count for partial indexes only, and the plans of the queries on
        them (jobs_leases, api_keys_one_active, signing_certificates_current) stay the same, with costs a
        hundredth apart."""
        try:
            async with conn.transaction():
                await conn.execute("SET LOCAL lock_timeout = '5s'")
                if await self._definition(conn) != self.definition:
                    return False
                if await conn.fetchval(
                    "SELECT EXISTS (SELECT FROM pg_statistic WHERE starelid = ANY ($1::oid[]))", self.relations
                ):
                    return False  # analyzed: TRUNCATE keeps statistics, a fresh table has none
                changed = [
                    row["oid"]
                    for row in await conn.fetch(_SIZES, list(self.sizes))
                    if self.sizes[row["oid"]] != row["size"]
                ]
                changed += [
                    row[0]
                    for row in await conn.fetch(
                        "SELECT s FROM unnest($1::oid[]) AS s WHERE pg_sequence_last_value(s) IS NOT NULL",
                        self.sequences,
                    )
                ]
                if any(oid not in self.table_of for oid in changed):
                    return False  # schema_migrations, or a sequence no table owns
                dirty = {self.table_of[oid] for oid in changed}
                if dirty:
                    tables = ", ".join(f"{self.name}.{_identifier(table)}" for table in sorted(dirty))
                    await conn.execute(f"TRUNCATE {tables} RESTART IDENTITY CASCADE")
        except asyncpg.LockNotAvailableError:
            return False
        return True


class _MigratedPostgres:
    """This test process's migrated schemas: one for the test running (a process runs one at a time), the
    other emptied meanwhile, once the test before has given it back, so a test seldom waits for either.

    The work runs on an event loop of its own, in a thread, over one connection kept for the session: a
    test's event loop lasts for the test only, and a new connection would start a new server process."""

    def __init__(self) -> None:
        self._ready: list[_Schema] = []  # emptied
        self._emptying: dict[str, asyncio.Task[None]] = {}  # by schema name: given back, being emptied
        self._dropped: list[str] = []  # schemas that could not be emptied, dropped at the end
        self._built: list[_Schema] = []
        self._conn: asyncpg.Connection | None = None
        self._lock = asyncio.Lock()  # one statement at a time on the connection
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    async def take(self) -> str:
        """The URL of an emptied schema (from a test's event loop); `give_back` it after the test."""
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=self._loop.run_forever, name="migrated-postgres", daemon=True)
            self._thread.start()
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(self._take(), self._loop))

    def give_back(self, url: str) -> None:
        """Empties the schema of `url` in the background, for a later test."""
        assert self._loop is not None
        self._loop.call_soon_threadsafe(self._give_back, url)

    async def _connection(self) -> asyncpg.Connection:
        if self._conn is None or self._conn.is_closed():
            self._conn = await asyncpg.connect(POSTGRES_URL)
        return self._conn

    async def _take(self) -> str:
        if not self._ready and self._emptying and len(self._built) >= 2:
            await asyncio.wait(list(self._emptying.values()), return_when=asyncio.FIRST_COMPLETED)
        if not self._ready:
            schema = _Schema()
            try:
                async with self._lock:
                    await schema.build(await self._connection())
            except BaseException:
                self._dropped.append(schema.name)
                raise
            self._built.append(schema)
            self._ready.append(schema)
        return postgres_url(self._ready.pop().name)

    def _give_back(self, url: str) -> None:
        schema = next(schema for schema in self._built if postgres_url(schema.name) == url)
        self._emptying[schema.name] = asyncio.ensure_future(self._empty(schema))

    async def _empty(self, schema: _Schema) -> None:
        try:
            async with self._lock:
                emptied = await schema.empty(await self._connection())
        except Exception:  # the connection broke: a schema not known to be empty is never handed out
            emptied = False
            if self._conn is not None:
                self._conn.terminate()
        finally:
            del self._emptying[schema.name]
        if emptied:
            self._ready.append(schema)
        else:
            self._built.remove(schema)
            self._dropped.append(schema.name)

    def close(self) -> None:
        """Drops the schemas and ends the thread (from no event loop: at the end of the session)."""
        if self._loop is None:
            return
        asyncio.run_coroutine_threadsafe(self._close(), self._loop).result()
        self._loop.call_soon_threadsafe(self._loop.stop)
        assert self._thread is not None
        self._thread.join()
        self._loop.close()

    async def _close(self) -> None:
        if self._emptying:
            await asyncio.wait(list(self._emptying.values()))
        conn = await self._connection()
        try:
            await conn.execute("SET lock_timeout = '10s'")  # a connection left open must not hang the end
            for name in [*self._dropped, *(schema.name for schema in self._built)]:
                with contextlib.suppress(asyncpg.LockNotAvailableError):
                    await conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        finally:
            await conn.close()


class Migrated:
    """Migrated databases of both backends for the tests of one test process (a session fixture)."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._sqlite: Path | None = None
        self._postgres = _MigratedPostgres()

    async def sqlite_url(self, path: Path) -> str:
        """A copy at `path` of a SQLite file this process migrated once: what migrating a new file makes
        (the tables, indexes and recorded migrations, no rows), but for when the migrations were applied."""
        if self._sqlite is None:
            template = self._directory / "migrated.sqlite3"
            db = await open_db(f"sqlite:///{template}")
            await migrate(db)
            await db.close()  # the last connection: SQLite writes the WAL back and removes it
            assert not template.with_name(template.name + "-wal").exists()
            self._sqlite = template
        shutil.copyfile(self._sqlite, path)
        return f"sqlite:///{path}"

    async def postgres_url(self) -> str:
        """The URL of an emptied Postgres schema; `give_back` it once the test is over."""
        return await self._postgres.take()

    def give_back(self, postgres_url: str) -> None:
        self._postgres.give_back(postgres_url)

    def close(self) -> None:
        self._postgres.close()
