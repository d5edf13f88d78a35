"""What a webhook carries as `data` (SPEC section 6): one serializer per kind of record an event is
about (the event's `record_type`), called when the delivery is sent, so links in it are fresh.

A serializer is `async (conn, services, record_id, event_type) -> dict | None`: the record's JSON
for that event type, or None when the record no longer exists. Serializers reuse the API's own
record JSON (a webhook is the same wire format sent the other way), so the app factory hands this
table to the deliverer rather than the background layer importing the HTTP edge.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

import storage.submissions as stored_submissions
import storage.templates as stored_templates
from signsvc.http.api.submissions import submission_record
from signsvc.http.api.submitters import webhook_data
from signsvc.http.api.templates import template_json
from signsvc.infra.services import Services
from storage import Connection

Serializer = Callable[[Connection, Services, int, str], Awaitable[dict[str, Any] | None]]


async def _template(conn: Connection, services: Services, template_id: int, event_type: str) -> dict[str, Any] | None:
    """template.created and template.updated carry the template record (REFERENCE section 3.1)."""
    template = await stored_templates.get_template(conn, template_id)
    if template is None:
        return None
    return template_json(services.files, template, await stored_templates.list_documents(conn, template.id))


async def _submitter(conn: Connection, services: Services, submitter_id: int, event_type: str) -> dict[str, Any] | None:
    """form.* events carry the signer (SPEC section 2, webhook data for a signer)."""
    signer = await stored_submissions.get_submitter(conn, submitter_id)
    return None if signer is None else await webhook_data(services, signer)


async def _submission(conn: Connection, services: Services, submission_id: int,
                      event_type: str) -> dict[str, Any] | None:
    """submission.* events carry the submission as GET /submissions/{id} answers it; archiving, less."""
    submission = await stored_submissions.get_submission(conn, submission_id)
    if submission is None:
        return None
    if event_type == "submission.archived":
        return {"id": submission.id, "slug": submission.slug, "archived_at": submission.archived_at}
    return await submission_record(services, submission, with_events=True)


SERIALIZERS: dict[str, Serializer] = {
    "template": _template,
    "submitter": _submitter,
    "submission": _submission,
}

