"""The storage boundary without a database: both dialects' migrations, SQL as each driver rewrites it,
database URLs refused before connecting. The contract on both backends is in tests/api/test_storage.py."""

import pytest

from storage import StorageError, open_database
from storage.migrations import available
from storage.postgres import PostgresDatabase, numbered
from storage.sqlite import split_statements


async def test_every_dialect_has_the_same_numbered_migrations():
    sqlite, postgres = available("sqlite"), available("postgres")
    assert [(m.version, m.name) for m in sqlite] == [(m.version, m.name) for m in postgres]


async def test_unsupported_database_url_is_refused():
    with pytest.raises(ValueError, match="unsupported database URL 'mysql://x'"):
        await open_database("mysql://x")


async def test_configured_but_unreachable_postgres_fails_clearly():
    with pytest.raises(StorageError, match="cannot connect to Postgres"):
        await PostgresDatabase.open("postgresql://postgres@127.0.0.1:1/test")


def test_named_parameters_become_numbered_for_postgres():
    assert numbered("SELECT * FROM t WHERE a = :a AND b::text = :b OR c = :a") == (
        "SELECT * FROM t WHERE a = $1 AND b::text = $2 OR c = $1",
        ("a", "b"),
    )


def test_sqlite_scripts_split_into_whole_statements():
    script = "CREATE TABLE a (x INTEGER);\n-- note\nCREATE TRIGGER t AFTER INSERT ON a BEGIN\n  SELECT 1;\nEND;\n"
    assert len(split_statements(script)) == 2
