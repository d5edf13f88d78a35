"""Stored webhook endpoints, their deliveries and the attempts of each delivery."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from storage.database import Connection
from storage.records import DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from storage.rows import json_time, record, records, required


async def insert_endpoint(
    conn: Connection,
    *,
    account_id: int,
    url: str,
    events: list[str],
    secret_header: str | None,
    secret: str | None,
    now: datetime,
) -> WebhookEndpoint | None:
    """The new endpoint, or None when the account already has one with this url."""
    row = await conn.fetch_one(
        "insert_webhook_endpoint",
        account_id=account_id,
        url=url,
        events=events,
        secret_header=secret_header,
        secret=secret,
        now=now,
    )
    return record(WebhookEndpoint, row)


async def put_configured_endpoint(
    conn: Connection,
    *,
    account_id: int,
    url: str | None,
    events: list[str],
    secret_header: str | None,
    secret: str | None,
    now: datetime,
) -> None:
    """Makes the account's configured endpoint the one with `url` (none when url is None)."""
    await conn.execute("delete_other_configured_webhook_endpoints", account_id=account_id, url=url)
    if url is not None:
        await conn.execute(
            "put_configured_webhook_endpoint",
            account_id=account_id,
            url=url,
            events=events,
            secret_header=secret_header,
            secret=secret,
            now=now,
        )


async def get_endpoint(conn: Connection, endpoint_id: int) -> WebhookEndpoint | None:
    return record(WebhookEndpoint, await conn.fetch_one("get_webhook_endpoint", id=endpoint_id))


async def find_endpoint_by_url(conn: Connection, account_id: int, url: str) -> WebhookEndpoint | None:
    row = await conn.fetch_one("find_webhook_endpoint_by_url", account_id=account_id, url=url)
    return record(WebhookEndpoint, row)


async def count_endpoints(conn: Connection, account_id: int) -> int:
    return int(await conn.fetch_value("count_webhook_endpoints", "count", account_id=account_id))


async def list_endpoints(
    conn: Connection, account_id: int, *, limit: int, after: int | None = None, before: int | None = None
) -> list[WebhookEndpoint]:
    rows = await conn.fetch_all(
        "list_webhook_endpoints", account_id=account_id, limit=limit, after=after, before=before
    )
    return records(WebhookEndpoint, rows)


async def update_endpoint(conn: Connection, endpoint: WebhookEndpoint, now: datetime) -> WebhookEndpoint:
    """Writes the url, events and secret of `endpoint` (a changed copy of the stored one)."""
    row = await conn.fetch_one(
        "update_webhook_endpoint",
        id=endpoint.id,
        url=endpoint.url,
        events=endpoint.events,
        secret_header=endpoint.secret_header,
        secret=endpoint.secret,
        now=now,
    )
    return required(WebhookEndpoint, row)


async def delete_endpoint(conn: Connection, endpoint_id: int) -> None:
    await conn.execute("delete_webhook_endpoint", id=endpoint_id)


async def insert_deliveries(
    conn: Connection, *, event_id: int, account_id: int, event_type: str, now: datetime
) -> list[int]:
    """Deliveries of the event to every endpoint of the account that chose its type; answers their ids."""
    rows = await conn.fetch_all(
        "insert_webhook_deliveries", event_id=event_id, account_id=account_id, event_type=event_type, now=now
    )
    return [row["id"] for row in rows]


async def required_delivery(conn: Connection, delivery_id: int) -> WebhookDelivery:
    """A delivery that must exist (read back in the transaction that holds it)."""
    return required(WebhookDelivery, await conn.fetch_one("get_webhook_delivery", id=delivery_id))


async def get_delivery(conn: Connection, delivery_id: int) -> WebhookDelivery | None:
    return record(WebhookDelivery, await conn.fetch_one("get_webhook_delivery", id=delivery_id))


async def get_deliveries(conn: Connection, delivery_ids: list[int]) -> list[WebhookDelivery]:
    """The deliveries among these ids that exist, in any order."""
    return records(WebhookDelivery, await conn.fetch_all("get_webhook_deliveries", ids=delivery_ids))


async def list_deliveries(
    conn: Connection,
    endpoint_id: int,
    *,
    status: DeliveryStatus | None,
    limit: int,
    after: int | None = None,
    before: int | None = None,
) -> list[WebhookDelivery]:
    rows = await conn.fetch_all(
        "list_webhook_deliveries",
        endpoint_id=endpoint_id,
        status=status.value if status else None,
        limit=limit,
        after=after,
        before=before,
    )
    return records(WebhookDelivery, rows)


async def deliveries_of_account(
    conn: Connection, account_id: int, *, event_type: str | None, status: DeliveryStatus | None, limit: int
) -> list[WebhookDelivery]:
    rows = await conn.fetch_all(
        "list_account_webhook_deliveries",
        account_id=account_id,
        event_type=event_type,
        status=status.value if status else None,
        limit=limit,
    )
    return records(WebhookDelivery, rows)


async def latest_deliveries(conn: Connection, account_id: int) -> list[WebhookDelivery]:
    """The newest delivery of each endpoint of the account that has one."""
    return records(
        WebhookDelivery, await conn.fetch_all("latest_webhook_delivery_of_each_endpoint", account_id=account_id)
    )


async def attempts_of(
    conn: Connection, endpoint_id: int, deliveries: list[WebhookDelivery]
) -> dict[int, list[WebhookAttempt]]:
    """The attempts of each delivery of a page, in order, by delivery id."""
    found: dict[int, list[WebhookAttempt]] = {delivery.id: [] for delivery in deliveries}
    if deliveries:
        rows = await conn.fetch_all(
            "list_webhook_attempts_in_range", endpoint_id=endpoint_id, min_id=min(found), max_id=max(found)
        )
        for attempt in records(WebhookAttempt, rows):
            found.get(attempt.delivery_id, []).append(attempt)
    return found


async def attempts_of_deliveries(
    conn: Connection, deliveries: list[WebhookDelivery]
) -> dict[int, list[WebhookAttempt]]:
    """The attempts of each delivery, in order, by delivery id (deliveries of any endpoints)."""
    found: dict[int, list[WebhookAttempt]] = {delivery.id: [] for delivery in deliveries}
    if deliveries:
        rows = await conn.fetch_all("list_webhook_attempts_of_deliveries", ids=list(found))
        for attempt in records(WebhookAttempt, rows):
            found[attempt.delivery_id].append(attempt)
    return found


async def record_attempt(
    conn: Connection,
    delivery: WebhookDelivery,
    *,
    attempted_at: datetime,
    response_status: int | None,
    error: str | None,
    duration_ms: int,
    status: DeliveryStatus,
    failures: int,
    next_attempt_at: datetime | None,
    now: datetime,
) -> None:
    """Logs attempt number `delivery.attempts + 1` and brings the delivery to its state after it."""
    number = delivery.attempts + 1
    await conn.execute(
        "insert_webhook_attempt",
        delivery_id=delivery.id,
        number=number,
        attempted_at=attempted_at,
        response_status=response_status,
        error=error,
        duration_ms=duration_ms,
    )
    await conn.execute(
        "update_webhook_delivery",
        id=delivery.id,
        status=status.value,
        attempts=number,
        failures=failures,
        next_attempt_at=next_attempt_at,
        now=now,
    )


@dataclass(frozen=True)
class Attempted:
    """One attempt of a delivery, as `record_attempt` takes it, for `record_attempts`."""

    delivery: WebhookDelivery
    attempted_at: datetime
    response_status: int | None
    error: str | None
    duration_ms: int
    status: DeliveryStatus
    failures: int
    next_attempt_at: datetime | None


async def record_attempts(conn: Connection, attempts: list[Attempted], now: datetime) -> None:
    """`record_attempt` for several deliveries (each at most once) in two statements."""
    if not attempts:
        return
    rows = [
        {
            "delivery_id": a.delivery.id,
            "number": a.delivery.attempts + 1,
            "attempted_at": json_time(a.attempted_at),
            "response_status": a.response_status,
            "error": a.error,
            "duration_ms": a.duration_ms,
            "status": a.status.value,
            "failures": a.failures,
            "next_attempt_at": a.next_attempt_at and json_time(a.next_attempt_at),
        }
        for a in attempts
    ]
    await conn.execute("insert_webhook_attempts", attempts=rows)
    await conn.execute("update_webhook_deliveries", attempts=rows, now=now)


async def resend_delivery(conn: Connection, delivery_id: int, now: datetime) -> None:
    await conn.execute("resend_webhook_delivery", id=delivery_id, now=now)


async def latest_completed_submitter_id(conn: Connection, account_id: int) -> int | None:
    row = await conn.fetch_one("latest_completed_submitter", account_id=account_id)
    return row["id"] if row else None
