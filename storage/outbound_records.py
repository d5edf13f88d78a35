"""Frozen records of what the service runs later and sends out: jobs, events, webhook endpoints, their deliveries
and attempts, emails (`storage/rows.py` converts rows to them, as to those of `storage/records.py`)."""

from __future__ import annotations

import dataclasses
import enum
from datetime import datetime
from typing import Any


class JobStatus(enum.StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    FAILED = "failed"


class DeliveryStatus(enum.StrEnum):
    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"


@dataclasses.dataclass(frozen=True, slots=True)
class Job:
    id: int
    kind: str
    payload: dict[str, Any]
    status: JobStatus
    run_at: datetime
    attempts: int
    locked_by: str | None
    locked_until: datetime | None
    last_error: str | None
    dedupe_key: str | None
    created_at: datetime


@dataclasses.dataclass(frozen=True, slots=True)
class Event:
    id: int
    uuid: str
    account_id: int
    event_type: str
    record_type: str
    record_id: int
    created_at: datetime


@dataclasses.dataclass(frozen=True, slots=True)
class WebhookEndpoint:
    id: int
    account_id: int
    url: str
    events: list[str]
    secret_header: str | None
    secret: str | None
    configured: bool
    created_at: datetime
    updated_at: datetime


@dataclasses.dataclass(frozen=True, slots=True)
class WebhookDelivery:
    """A delivery of one event to one endpoint, with the event it carries and the endpoint's url and secret."""

    id: int
    endpoint_id: int
    event_id: int
    status: DeliveryStatus
    attempts: int
    failures: int
    next_attempt_at: datetime | None
    created_at: datetime
    updated_at: datetime
    event_uuid: str
    event_type: str
    record_type: str
    record_id: int
    account_id: int
    event_created_at: datetime
    url: str
    secret_header: str | None
    secret: str | None


@dataclasses.dataclass(frozen=True, slots=True)
class WebhookAttempt:
    id: int
    delivery_id: int
    number: int
    attempted_at: datetime
    response_status: int | None
    error: str | None
    duration_ms: int


@dataclasses.dataclass(frozen=True, slots=True)
class Email:
    id: int
    account_id: int
    kind: str
    submitter_id: int | None
    to_address: str
    reply_to: str | None
    subject: str
    text_body: str
    html_body: str
    status: str
    attempts: int
    last_error: str | None
    created_at: datetime
    sent_at: datetime | None
    attachments: list[int]
