"""A fresh database for each target: a SQLite file in the server's working directory, or a Postgres
schema selected with `?search_path=` and dropped afterwards."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"


def sqlite_url(workdir: Path) -> str:
    return f"sqlite:///{workdir / 'signsvc.sqlite3'}"


@contextlib.contextmanager
def fresh_database(kind: str, workdir: Path, prefix: str) -> Iterator[str]:
    """The URL of a new, empty database of `kind` ("sqlite" or "postgres"); a schema is named after `prefix`."""
    if kind == "sqlite":
        yield sqlite_url(workdir)
    else:
        with postgres_schema(prefix) as url:
            yield url


@contextlib.contextmanager
def postgres_schema(prefix: str) -> Iterator[str]:
    """A fresh, empty schema; yields a database URL that uses it, drops it afterwards."""
    schema = f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    asyncio.run(_postgres(f'CREATE SCHEMA "{schema}"'))
    try:
        yield f"{POSTGRES_URL}?search_path={schema}"
    finally:
        asyncio.run(_postgres(f'DROP SCHEMA "{schema}" CASCADE'))


async def _postgres(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(POSTGRES_URL, timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def check_postgres() -> str | None:
    """None when Postgres answers; else why not."""
    try:
        asyncio.run(_postgres("SELECT 1"))
    except Exception as exc:  # any failure to connect means: not there
        return f"{type(exc).__name__}: {exc}"
    return None


def require_postgres(parser: argparse.ArgumentParser, instead: str = "--skip-postgres") -> None:
    """Ends the script with a usage error when Postgres does not answer, naming the option that leaves it out."""
    if why := check_postgres():
        parser.error(f"Postgres at {POSTGRES_URL} is not reachable ({why}); use {instead}")


def kinds(skip_postgres: bool) -> list[str]:
    """The databases measured: SQLite, then Postgres unless skipped."""
    return ["sqlite"] if skip_postgres else ["sqlite", "postgres"]
