"""The storage boundary without a database: both dialects' migrations, SQL as each driver rewrites it,
database URLs refused before connecting. The contract on both backends is in tests/api/test_storage.py."""

import json

import pytest

from storage import StorageError, open_database
from storage.migrations import available
from storage.postgres import PostgresDatabase, numbered
from storage.rows import from_json
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


@pytest.mark.parametrize(
    "text",
    [
        '{"n": 18446744073709551616, "m": -9223372036854775809, "k": 123456789012345678901234567890}',
        "[9223372036854775807, -9223372036854775808, 1e20, 0.1, -0.0, 5e-324]",
        '{"name": "\\ud800 alone", "pair": "\\ud83d\\ude00", "again": 1, "again": 2}',
        "[NaN, Infinity, -Infinity]",
        '"' + "1" * 19 + '"',
    ],
)
def test_json_columns_read_as_the_standard_library_reads_them(text):
    read = from_json(text)
    assert read == json.loads(text) or repr(read) == repr(json.loads(text))  # NaN is not equal to itself
    assert _types(read) == _types(json.loads(text))


def _types(value: object) -> object:
    if isinstance(value, dict):
        return {key: _types(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_types(item) for item in value]
    return type(value)
