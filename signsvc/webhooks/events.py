"""Events: recorded in the transaction of the change they report, each with a uuid
that stays its `event_id` on every delivery, together with a delivery to each webhook endpoint that
chose the event's type."""

from __future__ import annotations

import uuid

import storage.events as stored
from signsvc.infra.clock import Clock
from signsvc.webhooks import endpoints
from storage import Connection
from storage.records import Event


async def record(
    tx: Connection, clock: Clock, *, account_id: int, event_type: str, record_type: str, record_id: int
) -> Event:
    event, subscribed = await stored.insert_event(
        tx,
        uuid=str(uuid.uuid4()),
        account_id=account_id,
        event_type=event_type,
        record_type=record_type,
        record_id=record_id,
        now=clock.now(),
    )
    if subscribed:
        await endpoints.fan_out(tx, clock, event)
    return event
