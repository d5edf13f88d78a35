"""Stored settings of an account, each a JSON value by name (service-wide ones are in `storage.settings`)."""

from __future__ import annotations

import json
from typing import Any

from storage.database import Connection


async def get(conn: Connection, account_id: int, name: str) -> Any:
    """The setting's value; None when the account has not set it."""
    row = await conn.fetch_one("get_account_setting", account_id=account_id, name=name)
    return json.loads(row["value"]) if row else None


async def put(conn: Connection, account_id: int, name: str, value: Any) -> None:
    """Stores the value; None forgets the setting."""
    if value is None:
        await conn.execute("delete_account_setting", account_id=account_id, name=name)
    else:
        await conn.execute("put_account_setting", account_id=account_id, name=name, value=json.dumps(value))
