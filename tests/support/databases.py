"""The two backends every database test runs on: SQLite files and Postgres schemas.

Postgres runs when `SIGNSVC_TEST_POSTGRES_URL` names a server (CI sets it); each test gets a schema of
its own, so tests in parallel workers never see each other's rows. A configured server that can't be
reached fails the run; it is never skipped.
"""

from __future__ import annotations

import os
import uuid
from typing import Any

import asyncpg
import pytest
from yarl import URL

from storage import Database
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

    async def __aenter__(self) -> "PostgresSchema":
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
