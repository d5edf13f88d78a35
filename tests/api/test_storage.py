"""The storage boundary: one contract, two backends, one schema.

What needs no database (the migration lists, SQL rewriting, URLs) is in tests/unit/test_storage_dialects.py."""

import asyncio
import contextlib
import sqlite3
from datetime import UTC, datetime

import asyncpg
import pytest

import storage.jobs as stored_jobs
from signsvc.infra.clock import ManualClock
from storage import StorageError, open_database
from storage.baseline import dump, made_by
from storage.migrations import available, baseline, migrate
from tests.support.databases import NO_POSTGRES, POSTGRES_URL, PostgresSchema, open_db


async def test_migrations_apply_once_and_are_recorded(db):
    assert await migrate(db) == []
    for migration in available(db.dialect):
        assert await db.fetch_one("migration_applied", version=migration.version)


async def test_migrations_from_two_processes_at_once_apply_once(database_url):
    dbs = [await open_db(database_url) for _ in range(2)]
    try:
        results = await asyncio.gather(*(migrate(db) for db in dbs))
    finally:
        for db in dbs:
            await db.close()
    # On Postgres one process takes them all (an advisory lock); SQLite's writers may take turns
    # per migration. Either way each migration is applied exactly once.
    versions = sorted(migration.version for applied in results for migration in applied)
    assert versions == [migration.version for migration in available("sqlite")]


async def test_a_new_database_is_made_in_one_transaction_every_migration_recorded_at_one_time(database_url):
    db = await open_db(database_url)
    try:
        assert [migration.version for migration in await migrate(db)] == [m.version for m in available(db.dialect)]
    finally:
        await db.close()
    assert len(await _migration_times(database_url)) == 1


async def _migration_times(database_url: str) -> set[str]:
    """When each migration was recorded, read past the storage boundary (no named query reads it)."""
    query = "SELECT applied_at FROM schema_migrations"
    if database_url.startswith("sqlite:///"):
        with contextlib.closing(sqlite3.connect(database_url.removeprefix("sqlite:///"))) as conn:
            return {str(row[0]) for row in conn.execute(query)}
    conn = await asyncpg.connect(database_url)
    try:
        return {str(row[0]) for row in await conn.fetch(query)}
    finally:
        await conn.close()


async def test_a_new_database_the_one_script_cannot_make_is_migrated_one_migration_at_a_time(database_url):
    """Nothing of the failed script stays: the migrations before the one in the way are applied, that one fails."""
    db = await open_db(database_url)
    try:
        await db.run_script("CREATE TABLE templates (id INTEGER);")  # in the way of the second migration
        with pytest.raises(StorageError, match="templates"):
            await migrate(db)
        assert {row["version"] for row in await db.fetch_all("applied_migrations")} == {1}
    finally:
        await db.close()


def test_the_sqlite_baseline_is_what_its_migrations_make_one_at_a_time():
    start = baseline("sqlite")
    assert start is not None
    upto = [migration for migration in available("sqlite") if migration.version <= start.version]
    assert made_by(upto) == start.sql, "the baseline is not what its migrations make: python -m storage.baseline"


async def test_a_new_sqlite_database_has_the_schema_and_rows_its_migrations_make_one_at_a_time(tmp_path):
    path = tmp_path / "new.sqlite3"
    db = await open_db(f"sqlite:///{path}")
    try:
        await migrate(db)
    finally:
        await db.close()
    with contextlib.closing(sqlite3.connect(path)) as conn:
        made = dump(conn)
    assert made == made_by(available("sqlite")).split("\n\n", 1)[1]  # without the baseline's header


async def test_a_database_already_up_to_date_is_migrated_without_waiting_for_the_migration_lock(db, database_url):
    holder, starting = [await open_database(database_url, single_process=False) for _ in range(2)]
    try:
        async with holder.exclusive():  # another process migrating, or bootstrapping
            assert await asyncio.wait_for(migrate(starting), 5) == []
    finally:
        await holder.close()
        await starting.close()


async def test_a_transaction_rolls_back_on_an_exception(db):
    with pytest.raises(RuntimeError):
        async with db.transaction() as tx:
            await tx.execute("add_setting", name="color", value="blue")
            raise RuntimeError("abort")
    assert await db.fetch_one("get_setting", name="color") is None


async def test_a_transaction_commits_on_normal_exit(db):
    async with db.transaction() as tx:
        await tx.execute("add_setting", name="color", value="blue")
    assert await db.fetch_one("get_setting", name="color") == {"value": "blue"}


async def test_notify_reaches_listeners_after_commit_and_never_after_rollback(db):
    woken = asyncio.Event()
    await db.listen("test_channel", woken.set)
    with pytest.raises(RuntimeError):
        async with db.transaction() as tx:
            await tx.notify("test_channel")
            raise RuntimeError("abort")
    await asyncio.sleep(0.1)
    assert not woken.is_set()
    async with db.transaction() as tx:
        await tx.notify("test_channel")
        await asyncio.sleep(0.05)
        assert not woken.is_set(), "woken before the commit"
    await asyncio.wait_for(woken.wait(), 5)


async def test_a_job_inserted_is_heard_on_its_channel_after_the_commit_in_this_process_and_others(db, database_url):
    other = None if db.single_process else await open_db(database_url)
    heard = {name: asyncio.Event() for name in ("here", "there")}
    await db.listen("test_channel", heard["here"].set)
    if other:
        await other.listen("test_channel", heard["there"].set)
    clock = ManualClock()
    try:
        async with db.transaction() as tx:
            await stored_jobs.insert_job(
                tx, kind="k", payload={}, run_at=clock.now(), now=clock.now(), channel="test_channel"
            )
            await asyncio.sleep(0.05)
            assert not any(event.is_set() for event in heard.values()), "heard before the commit"
        await asyncio.wait_for(heard["here"].wait(), 5)
        if other:
            await asyncio.wait_for(heard["there"].wait(), 5)
    finally:
        if other:
            await other.close()


async def test_a_job_inserted_on_postgres_notifies_in_its_own_statement_without_another_round_trip(db):
    if db.single_process:
        pytest.skip("SQLite notifies this process only: no statement at all")
    sent: list[str] = []
    clock = ManualClock()
    async with db.transaction() as tx:
        tx._conn.add_query_logger(lambda record: sent.append(record.query))  # asyncpg's log of what it sends
        await stored_jobs.insert_job(tx, kind="k", payload={}, run_at=clock.now(), now=clock.now(), channel="c")
    statements = [query for query in sent if query != "COMMIT;"]
    assert len(statements) == 1 and "pg_notify" in statements[0], sent


async def test_records_keep_timestamps_to_the_microsecond_json_and_enums(db):
    moment = datetime(2026, 3, 4, 5, 6, 7, 123456, tzinfo=UTC)
    clock = ManualClock(moment)
    async with db.transaction() as tx:
        job = await stored_jobs.insert_job(
            tx, kind="k", payload={"name": "Zoë", "n": [1, 2]}, run_at=moment, now=clock.now(), channel="test_channel"
        )
    again = await stored_jobs.get_job(db, job.id)
    assert again == job
    assert again.run_at == moment and again.run_at.tzinfo is not None
    assert again.payload == {"name": "Zoë", "n": [1, 2]}
    assert again.status.value == "pending"


async def test_json_keeps_integers_beyond_64_bits_as_integers(db):
    clock = ManualClock()
    payload = {"big": 2**70, "low": -(2**63) - 1, "usual": [1, 0.5, "1234567890123456789012"]}
    async with db.transaction() as tx:
        job = await stored_jobs.insert_job(
            tx, kind="k", payload=payload, run_at=clock.now(), now=clock.now(), channel="test_channel"
        )
    again = await stored_jobs.get_job(db, job.id)
    assert again.payload == payload and isinstance(again.payload["big"], int) and isinstance(again.payload["low"], int)


async def test_ids_are_integers_and_never_reused_after_a_delete(db):
    clock = ManualClock()
    async with db.transaction() as tx:
        first = await stored_jobs.insert_job(
            tx, kind="k", payload={}, run_at=clock.now(), now=clock.now(), channel="test_channel"
        )
    claimed = await stored_jobs.claim_job(db, worker="w", now=clock.now(), lease_until=clock.now())
    await stored_jobs.delete_job(db, claimed.id, "w")
    async with db.transaction() as tx:
        second = await stored_jobs.insert_job(
            tx, kind="k", payload={}, run_at=clock.now(), now=clock.now(), channel="test_channel"
        )
    assert isinstance(first.id, int) and second.id > first.id


async def test_a_query_missing_a_parameter_names_it(db):
    with pytest.raises((TypeError, StorageError)) as raised:
        await db.fetch_one("get_setting")
    assert "name" in str(raised.value)


async def test_an_unknown_query_name_is_an_error(db):
    with pytest.raises(KeyError, match="no query named 'drop_everything'"):
        await db.fetch_all("drop_everything")


async def test_a_database_counts_the_named_queries_it_runs_in_transactions_or_not_without_begin_and_commit(db):
    before = db.statements
    await db.fetch_all("ping")
    async with db.transaction() as tx:
        await tx.fetch_all("ping")
        await tx.fetch_all("ping")
    assert db.statements - before == 3


async def test_ping_answers_while_the_database_is_up(db):
    await db.ping()


async def test_sqlite_in_memory_is_an_ephemeral_database():
    db = await open_database("sqlite:///:memory:")
    try:
        assert await migrate(db)
        assert await db.fetch_one("ping") == {"ok": 1}
    finally:
        await db.close()


def _sqlite_type(pg_type: str) -> str:
    return {
        "bigint": "INTEGER",
        "integer": "INTEGER",
        "boolean": "INTEGER",
        "text": "TEXT",
        "timestamp with time zone": "TEXT",
        "jsonb": "TEXT",
        "bytea": "BLOB",
        "double precision": "REAL",
    }[pg_type]


# Where SQLite processes read the count of changes to keys, users and accounts; Postgres notifies them instead.
SQLITE_ONLY = {"change_counters"}


@pytest.mark.skipif(not POSTGRES_URL, reason=NO_POSTGRES)
async def test_sqlite_and_postgres_schemas_agree(tmp_path):
    sqlite = await open_database(f"sqlite:///{tmp_path / 'schema.sqlite3'}")
    await migrate(sqlite)
    tables = {
        row["name"]
        for row in await sqlite._run(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'", {}
        )
    }
    tables -= SQLITE_ONLY
    sqlite_columns = {}
    for table in tables:
        for row in await sqlite._run(f"PRAGMA table_info({table})", {}):
            sqlite_columns[(table, row["name"])] = (row["type"], bool(row["notnull"] or row["pk"]))
    await sqlite.close()

    async with PostgresSchema() as schema:
        postgres = await open_database(schema.url)
        await migrate(postgres)
        async with postgres._pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT table_name, column_name, data_type, is_nullable "
                "FROM information_schema.columns WHERE table_schema = $1",
                schema.name,
            )
        await postgres.close()
    postgres_columns = {
        (r["table_name"], r["column_name"]): (_sqlite_type(r["data_type"]), r["is_nullable"] == "NO") for r in rows
    }
    assert sqlite_columns == postgres_columns
