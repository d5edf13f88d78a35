"""A template with two signer roles, and submissions of it, as the submission tests use them."""

from __future__ import annotations

from typing import Any

import storage.events as stored_events
from storage import Database
from tests.support.documents import b64, pdf


def area(y: float) -> dict[str, Any]:
    return {"x": 0.1, "y": y, "w": 0.3, "h": 0.05, "page": 1}


FIELDS = [
    {"name": "Full Name", "type": "text", "role": "First Party", "areas": [area(0.1)]},
    {"name": "Signature", "type": "signature", "role": "First Party", "areas": [area(0.2)]},
    {"name": "Newsletter", "type": "checkbox", "role": "First Party", "required": False, "areas": [area(0.3)]},
    {"name": "Buyer Name", "type": "text", "role": "Second Party", "areas": [area(0.4)]},
]


async def template(api, fields: list[dict[str, Any]] | None = None, **changes: Any) -> int:
    reply = await api.post(
        "/api/templates",
        json={
            "name": "NDA",
            "documents": [{"name": "nda", "file": b64(pdf()), "fields": FIELDS if fields is None else fields}],
            **changes,
        },
    )
    assert reply.status == 201, reply.json
    return reply.json["id"]


async def template_with_viewer(api, at: int = 1) -> int:
    """The sample template with a third role, "Viewer", that has no fields, at position `at` of its roles."""
    template_id = await template(api)
    roles = (await api.get(f"/api/templates/{template_id}")).json["submitters"]
    roles.insert(at, {"name": "Viewer"})
    reply = await api.put(f"/api/templates/{template_id}", json={"submitters": roles})
    assert reply.status == 200, reply.json
    return template_id


VIC = {"email": "vic@example.com", "name": "Vic", "role": "Viewer"}


async def send(api, template_id: int, *submitters: dict[str, Any], **body: Any) -> list[dict[str, Any]]:
    """Creates a submission; answers its signers."""
    submitters = submitters or (
        {"email": "ann@example.com", "name": "Ann"},
        {"email": "bob@example.com", "name": "Bob"},
    )
    reply = await api.post(
        "/api/submissions", json={"template_id": template_id, "submitters": list(submitters), **body}
    )
    assert reply.status == 200, reply.json
    return reply.json


async def submission(api, submission_id: int) -> dict[str, Any]:
    reply = await api.get(f"/api/submissions/{submission_id}")
    assert reply.status == 200, reply.json
    return reply.json


async def act(api, slug: str, action: str, body: dict[str, Any] | None = None, **headers: str):
    """A signer action (view, values, complete, decline): no API key, the slug is the credential."""
    return await api.with_key(None).post(f"/s/{slug}/{action}", json=body or {}, headers=headers)


ANN_VALUES = {"Full Name": "Ann Smith", "Signature": "Ann Smith"}
BOB_VALUES = {"Buyer Name": "Bob Buyer"}


async def event_types(db: Database, record_type: str, record_id: int) -> list[str]:
    return [event.event_type for event in await stored_events.list_events_of_record(db, record_type, record_id)]
