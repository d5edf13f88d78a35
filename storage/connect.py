"""Opening the database a URL names: the only place that picks a backend."""

from __future__ import annotations

from storage.database import Database


async def open_database(url: str, *, single_process: bool = True) -> Database:
    """Opens the database a `SIGNSVC_DATABASE_URL` names: `sqlite:///...` or `postgresql://...`.
    `single_process=False` tells a SQLite file that other processes share it (Postgres always expects them)."""
    if url.startswith("sqlite:///"):
        from storage.sqlite import SQLiteDatabase

        return await SQLiteDatabase.open(url.removeprefix("sqlite:///"), single_process=single_process)
    if url.startswith(("postgresql://", "postgres://")):
        from storage.postgres import PostgresDatabase

        return await PostgresDatabase.open(url)
    raise ValueError(f"unsupported database URL {url!r}: use sqlite:///path or postgresql://...")
