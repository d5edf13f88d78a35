"""A template with a field of every type for one signer, as the signing page tests fill it in."""

from __future__ import annotations

from typing import Any

from tests.support.documents import b64, pdf

SIGNER = "Tenant"


def box(page: int, y: float, x: float = 0.1, w: float = 0.3, **more: Any) -> dict[str, Any]:
    return {"x": x, "y": y, "w": w, "h": 0.04, "page": page, **more}


def field(name: str, kind: str, *areas: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"name": name, "type": kind, "role": SIGNER, "areas": list(areas), **more}


EVERY_FIELD = [
    field("Full name", "text", box(1, 0.10), validation={"pattern": "^[A-Za-z ]+$", "message": "Letters only"}),
    field("Reference", "text", box(1, 0.15), readonly=True, default_value="REF-42"),
    field("Signature", "signature", box(1, 0.20, h=0.08)),
    field("Initials", "initials", box(1, 0.30, w=0.1)),
    field("Signed on", "date", box(1, 0.35), default_value="{{date}}", preferences={"format": "MMMM D, YYYY"}),
    field("Age", "number", box(1, 0.40, w=0.1), validation={"min": 18, "max": 120}),
    field("I agree", "checkbox", box(1, 0.45, w=0.04)),
    field(
        "Plan",
        "radio",
        box(1, 0.50, w=0.04, option="Basic"),
        box(1, 0.50, x=0.3, w=0.04, option="Pro"),
        options=["Basic", "Pro"],
    ),
    field("Country", "select", box(1, 0.55), options=["Germany", "France", "Spain"]),
    field("Extras", "multiple", box(1, 0.60), options=["Parking", "Storage"], required=False),
    field("Photo", "image", box(2, 0.10, h=0.1)),
    field("Attachment", "file", box(2, 0.25), required=False),
    field("Stamp", "stamp", box(2, 0.35, h=0.08), required=False),
    field("Postcode", "cells", box(2, 0.50, w=0.25, cell_w=0.05)),
    field("Phone", "phone", box(2, 0.60), required=False),
]


ONE_FIELD = [field("Full name", "text", box(1, 0.10))]


async def every_field_template(api, fields: list[dict[str, Any]] = EVERY_FIELD, **changes: Any) -> int:
    reply = await api.post(
        "/api/templates",
        json={
            "name": "Lease",
            "documents": [{"name": "lease", "file": b64(pdf(2, text="Lease agreement")), "fields": fields}],
            **changes,
        },
    )
    assert reply.status == 201, reply.json
    return reply.json["id"]


async def invite(api, template_id: int, **submitter: Any) -> dict[str, Any]:
    """A submission of the template to one signer; answers the signer."""
    reply = await api.post(
        "/api/submissions",
        json={
            "template_id": template_id,
            "send_email": False,
            "submitters": [{"role": SIGNER, "email": "tess@example.com", "name": "Tess", **submitter}],
        },
    )
    assert reply.status == 200, reply.json
    return reply.json[0]
