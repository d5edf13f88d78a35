"""Schema migrations: numbered SQL files per dialect, applied in order, each in its own transaction; a new database
gets them all in one (a new SQLite database from the baseline of those up to its version)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from storage.database import Database, StorageError
from storage.rows import json_time

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
_FILENAME = re.compile(r"^(\d{4})_(\w+)\.sql$")
# What the SQLite migrations up to a version make, as one script for a new database (storage/baseline.py).
BASELINE_PATH = MIGRATIONS_DIR / "sqlite-baseline.sql"
_BASELINE_VERSION = re.compile(r"^-- version (\d+)$", re.MULTILINE)


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def available(dialect: str) -> list[Migration]:
    found = []
    for path in sorted((MIGRATIONS_DIR / dialect).glob("*.sql")):
        match = _FILENAME.match(path.name)
        if not match:
            raise ValueError(f"migration file {path.name} is not named NNNN_name.sql")
        found.append(Migration(int(match[1]), match[2], path.read_text()))
    return found


@dataclass(frozen=True)
class Baseline:
    version: int  # the last migration it stands for
    sql: str


def baseline(dialect: str) -> Baseline | None:
    """The script that makes at once what the migrations up to its version make, for a new database of `dialect`
    (SQLite's: storage/baseline.py); None without one."""
    if dialect != "sqlite" or not BASELINE_PATH.exists():
        return None
    sql = BASELINE_PATH.read_text()
    found = _BASELINE_VERSION.search(sql)
    if found is None:
        raise ValueError(f"{BASELINE_PATH.name} does not say its version (-- version N)")
    return Baseline(int(found[1]), sql)


async def migrate(db: Database) -> list[Migration]:
    """Applies the migrations this database lacks; answers those it applied. An up-to-date database (every start
    of every process, every command) is only read; otherwise one process at a time migrates, each missing
    migration checked again in its own transaction, which another process migrating the same SQLite file at the
    same moment waits for."""
    migrations = available(db.dialect)
    if await _applied(db) >= {migration.version for migration in migrations}:
        return []  # a migration once applied stays applied: no lock needed to know there is nothing to do
    applied = []
    async with db.exclusive():
        if not await _applied(db) and await _created(db, migrations):
            return migrations
        await db.execute("create_migrations_table")
        for migration in migrations:
            async with db.transaction() as tx:
                if await tx.fetch_one("migration_applied", version=migration.version):
                    continue
                await tx.run_script(migration.sql)
                await tx.execute(
                    "record_migration", version=migration.version, name=migration.name, applied_at=datetime.now(UTC)
                )
            applied.append(migration)
    return applied


async def _applied(db: Database) -> set[int]:
    if not await db.fetch_value("migrations_table_exists", "present"):
        return set()
    return {row["version"] for row in await db.fetch_all("applied_migrations")}


async def _created(db: Database, migrations: list[Migration]) -> bool:
    """A new database made by one script: every migration in order (on SQLite the baseline for those up to its
    version) and their record, in one transaction (on SQLite one trip to its thread, not one per statement; on
    Postgres one round trip). False when that failed as a whole, as it does when another process made the schema
    meanwhile (a table it creates exists): the migrations then go one at a time, as for an older database, and a
    migration that cannot be applied says why there."""
    applied_at = json_time(datetime.now(UTC))
    records = ",\n".join(f"({migration.version}, '{migration.name}', '{applied_at}')" for migration in migrations)
    start = baseline(db.dialect)
    after = [migration for migration in migrations if not start or migration.version > start.version]
    script = "\n".join(
        [
            *([start.sql] if start else []),
            *(f"{migration.sql.rstrip()}\n;" for migration in after),
            f"INSERT INTO schema_migrations (version, name, applied_at) VALUES\n{records};",
        ]
    )
    try:
        await db.run_script(f"{db.queries['create_migrations_table']};\n{script}")
    except StorageError:
        return False
    return True
