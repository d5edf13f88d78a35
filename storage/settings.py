"""Stored service-wide settings (the generated secret key)."""

from __future__ import annotations

from storage.database import Connection


async def get(conn: Connection, name: str) -> str | None:
    row = await conn.fetch_one("get_setting", name=name)
    return row["value"] if row else None


async def get_or_add(conn: Connection, name: str, value: str) -> str:
    """The stored value; `value` is stored first when there is none (the first process wins)."""
    await conn.execute("add_setting", name=name, value=value)
    return str(await conn.fetch_value("get_setting", "value", name=name))
