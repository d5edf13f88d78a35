"""What the testing extension answers: the service clock and the captured emails."""

from __future__ import annotations

from typing import Any

from signsvc.infra.captured import CapturedEmail
from signsvc.infra.clock import ManualClock


def clock_json(clock: ManualClock) -> dict[str, Any]:
    return {"now": clock.now(), "frozen": clock.frozen}


def email_json(captured: CapturedEmail) -> dict[str, Any]:
    email = captured.email
    return {
        "id": email.id,
        "kind": email.kind,
        "to": email.to_address,
        "reply_to": email.reply_to,
        "subject": email.subject,
        "text": email.text_body,
        "html": email.html_body,
        "links": captured.links,
        "attachments": captured.attachments,
        "status": email.status,
        "submitter_id": email.submitter_id,
        "attempts": email.attempts,
        "last_error": email.last_error,
        "created_at": email.created_at,
        "sent_at": email.sent_at,
    }
