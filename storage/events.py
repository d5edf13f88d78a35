"""Stored events: what happened to a record, written with the change (the outbox)."""

from __future__ import annotations

from datetime import datetime

from storage.database import Connection
from storage.records import Event
from storage.rows import records, required


async def insert_event(
    conn: Connection, *, uuid: str, account_id: int, event_type: str, record_type: str, record_id: int, now: datetime
) -> tuple[Event, bool]:
    """The event, and whether an endpoint of its account chose its type (its deliveries are then to be made)."""
    row = await conn.fetch_one(
        "insert_event",
        uuid=uuid,
        account_id=account_id,
        event_type=event_type,
        record_type=record_type,
        record_id=record_id,
        created_at=now,
    )
    return required(Event, row), bool(row and row["subscribers"])


async def list_events_of_record(conn: Connection, record_type: str, record_id: int) -> list[Event]:
    return records(Event, await conn.fetch_all("list_events_of_record", record_type=record_type, record_id=record_id))
