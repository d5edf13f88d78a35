"""What a webhook carries as `data` (SPEC section 6): one serializer per kind of record an event is
about (the event's `record_type`), called when the delivery is sent, so links in it are fresh.

A serializer is `async (conn, services, record_id, event_type) -> dict | None`: the record's JSON
for that event type, or None when the record no longer exists. Serializers reuse the API's own
record JSON (a webhook is the same wire format sent the other way), so the app factory hands this
table to the deliverer rather than the background layer importing the HTTP edge.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

import storage.templates as stored_templates
from signsvc.api.templates import template_json
from signsvc.services import Services
from storage import Connection

Serializer = Callable[[Connection, Services, int, str], Awaitable[dict[str, Any] | None]]


async def _template(conn: Connection, services: Services, template_id: int, event_type: str) -> dict[str, Any] | None:
    """template.created and template.updated carry the template record (REFERENCE section 3.1)."""
    template = await stored_templates.get_template(conn, template_id)
    if template is None:
        return None
    return template_json(services.files, template, await stored_templates.list_documents(conn, template.id))


# "submitter" (form.* events) and "submission" (submission.* events) are registered with their records.
SERIALIZERS: dict[str, Serializer] = {
    "template": _template,
}

