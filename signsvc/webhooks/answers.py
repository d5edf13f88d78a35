"""What the webhooks' operations answer, as plain records: an endpoint written, a delivery with its attempts, an
attempt's outcome. Apart from the operations, so that the wire shapes them without reaching a database."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from storage.outbound_records import WebhookAttempt, WebhookDelivery, WebhookEndpoint


@dataclass(frozen=True)
class Changed:
    """An endpoint as written, and what the caller should hear about its settings."""

    endpoint: WebhookEndpoint
    warnings: list[str]


@dataclass(frozen=True)
class Delivered:
    """A delivery with its attempts, first to last."""

    delivery: WebhookDelivery
    attempts: list[WebhookAttempt]

    @property
    def id(self) -> int:
        return self.delivery.id


@dataclass(frozen=True)
class Outcome:
    """One attempt: acknowledged or not, the answer's status code, what went wrong, how long it took."""

    delivered: bool
    attempted_at: datetime
    response_status: int | None = None
    error: str | None = None
    duration_ms: int = 0
    final: bool = False  # no retry can mend it (the record is gone)
