"""The SQLite baseline (`storage/migrations/sqlite-baseline.sql`): the schema, and the rows, that the migrations up to
one version make in a new database, as one script that makes them at once: written here, read by
`storage/migrations.py`, from which a new SQLite database starts: SQLite reloads its whole schema after each ALTER
TABLE, so replaying every migration cost a new database about four times what creating their result does (tens of
milliseconds of a server's start). Postgres has none: its migrations run as one script too, and its own work on
them is the same either way. The script is what this module dumps from a database the migrations made one at a
time; `python -m storage.baseline` writes it again for the migrations there are (tests/api/test_storage.py checks
that it is what they make).
"""

from __future__ import annotations

import contextlib
import sqlite3
import sys

from storage.migrations import BASELINE_PATH, Migration, available


def made_by(migrations: list[Migration]) -> str:
    """The baseline script for what `migrations`, applied one at a time to a new database, make."""
    with contextlib.closing(sqlite3.connect(":memory:", isolation_level=None)) as conn:
        for migration in migrations:
            conn.executescript(migration.sql)
        return _header(migrations) + dump(conn)


def dump(conn: sqlite3.Connection) -> str:
    """A script that makes the database's schema and rows again: every table, index, view and trigger in the order
    it was made, then the rows (of a new database: the few a migration inserts), the migrations' record left out."""
    objects = conn.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
    ).fetchall()
    statements = [f"{sql};" for kind, name, sql in objects if name != "schema_migrations"]
    for kind, table, _ in objects:
        if kind == "table" and table != "schema_migrations":
            for row in conn.execute(f'SELECT * FROM "{table}" ORDER BY rowid'):
                statements.append(f"INSERT INTO {table} VALUES ({', '.join(_literal(value) for value in row)});")
    return "\n\n".join(statements) + "\n"


def _header(migrations: list[Migration]) -> str:
    return (
        f"-- What migrations {migrations[0].version:04d} to {migrations[-1].version:04d} make in a new SQLite database,"
        " at once (storage/baseline.py).\n"
        "-- Written by `python -m storage.baseline`: not edited by hand.\n"
        f"-- version {migrations[-1].version}\n\n"
    )


def _literal(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    raise TypeError(f"a new database's row holds a {type(value).__name__}, which the baseline cannot write")


if __name__ == "__main__":
    BASELINE_PATH.write_text(made_by(available("sqlite")))
    print(f"wrote {BASELINE_PATH}", file=sys.stderr)
