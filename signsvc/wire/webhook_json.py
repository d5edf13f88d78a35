"""Webhook endpoints, their deliveries and attempts as the `/api/webhooks` extension shows them."""

from __future__ import annotations

from typing import Any

from signsvc.webhooks.answers import Changed, Delivered, Outcome
from storage.outbound_records import WebhookAttempt, WebhookEndpoint


def endpoint_json(endpoint: WebhookEndpoint) -> dict[str, Any]:
    """The secret's value is never shown: whoever set it has it."""
    return {
        "id": endpoint.id,
        "url": endpoint.url,
        "events": endpoint.events,
        "secret": {"header": endpoint.secret_header} if endpoint.secret is not None else None,
        "configured": endpoint.configured,
        "created_at": endpoint.created_at,
        "updated_at": endpoint.updated_at,
    }


def changed_json(changed: Changed) -> dict[str, Any]:
    return {**endpoint_json(changed.endpoint), "warnings": changed.warnings}


def delivery_json(delivered: Delivered) -> dict[str, Any]:
    delivery = delivered.delivery
    return {
        "id": delivery.id,
        "endpoint_id": delivery.endpoint_id,
        "event_id": delivery.event_uuid,
        "event_type": delivery.event_type,
        "event_timestamp": delivery.event_created_at,
        "status": delivery.status.value,
        "next_attempt_at": delivery.next_attempt_at,
        "attempts": [attempt_json(attempt) for attempt in delivered.attempts],
        "created_at": delivery.created_at,
        "updated_at": delivery.updated_at,
    }


def attempt_json(attempt: WebhookAttempt) -> dict[str, Any]:
    return {
        "number": attempt.number,
        "attempted_at": attempt.attempted_at,
        "response_status": attempt.response_status,
        "error": attempt.error,
        "duration_ms": attempt.duration_ms,
    }


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    return {
        "delivered": outcome.delivered,
        "attempted_at": outcome.attempted_at,
        "response_status": outcome.response_status,
        "error": outcome.error,
        "duration_ms": outcome.duration_ms,
    }
