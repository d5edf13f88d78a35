"""Stored settings: service-wide (the generated secret key) and an account's own, named after it."""

from __future__ import annotations

from storage.database import Connection


async def get(conn: Connection, name: str) -> str | None:
    row = await conn.fetch_one("get_setting", name=name)
    return row["value"] if row else None


async def get_or_add(conn: Connection, name: str, value: str) -> str:
    """The stored value; `value` is stored first when there is none (the first process wins)."""
    await conn.execute("add_setting", name=name, value=value)
    return str(await conn.fetch_value("get_setting", "value", name=name))


async def put(conn: Connection, name: str, value: str) -> None:
    await conn.execute("put_setting", name=name, value=value)


async def delete(conn: Connection, name: str) -> None:
    await conn.execute("delete_setting", name=name)
