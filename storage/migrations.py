"""Schema migrations: numbered SQL files per dialect, applied in order, each in its own transaction."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from storage.database import Database, StorageError
from storage.rows import json_time

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
_FILENAME = re.compile(r"^(\d{4})_(\w+)\.sql$")


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
    """A new database made by one script: every migration in order and their record, in one transaction (on SQLite
    one trip to its thread, not one per statement; on Postgres one round trip). False when that failed as a whole,
    as it does when another process made the schema meanwhile (a table it creates exists): the migrations then go
    one at a time, as for an older database, and a migration that cannot be applied says why there."""
    applied_at = json_time(datetime.now(UTC))
    records = ",\n".join(f"({migration.version}, '{migration.name}', '{applied_at}')" for migration in migrations)
    script = "\n".join(
        [
            *(f"{migration.sql.rstrip()}\n;" for migration in migrations),
            f"INSERT INTO schema_migrations (version, name, applied_at) VALUES\n{records};",
        ]
    )
    try:
        await db.run_script(f"{db.queries['create_migrations_table']};\n{script}")
    except StorageError:
        return False
    return True
