"""What the signing form's script needs to apply conditions (pages/static/form-conditions.js): the signer's fields
and the other fields their conditions name (through any chain, another signer's included), the values stored for
those other fields, and the documents' conditions. Nothing of another signer's that no condition reads is sent, and
a file is sent as `true` (there is one), never its id."""

from __future__ import annotations

from typing import Any

from signsvc.submissions import field_values
from storage.records import Submission, Submitter
from storage.shapes import Field

# The catalogue's strings the script says when fields appear or go.
SCRIPT_STRINGS = ("conditions.shown", "conditions.shown_many", "conditions.hidden", "conditions.hidden_many")


def script_data(submission: Submission, submitter: Submitter, submitters: list[Submitter]) -> dict[str, Any]:
    """`{fields, values, documents}`; empty lists when nothing has conditions."""
    documents = [
        {"uuid": d["uuid"], "conditions": d["conditions"]} for d in submission.documents if d.get("conditions")
    ]
    if not documents and not any(f.get("conditions") for f in submission.fields):
        return {"fields": [], "values": {}, "documents": []}
    by_uuid = {f["uuid"]: f for f in submission.fields}
    own = [f for f in submission.fields if f.get("submitter_uuid") == submitter.role_uuid]
    wanted = _named_by_conditions(own, documents, by_uuid)
    fields = [f for f in submission.fields if f.get("submitter_uuid") == submitter.role_uuid or f["uuid"] in wanted]
    stored = {uuid: value for s in submitters for uuid, value in s.field_values.items()}
    values = {
        f["uuid"]: _value(f, stored[f["uuid"]])
        for f in fields
        if f["uuid"] in stored and (f["uuid"] in wanted or f.get("readonly"))
    }
    return {"fields": [_shape(f) for f in field_values.named(fields)], "values": values, "documents": documents}


def _named_by_conditions(own: list[Field], documents: list[dict[str, Any]], by_uuid: dict[str, Field]) -> set[str]:
    """The uuids of the fields the conditions of `own` fields and of the documents name, through any chain."""
    pending = [c["field_uuid"] for f in own for c in f.get("conditions", [])]
    pending += [c["field_uuid"] for d in documents for c in d["conditions"]]
    found: set[str] = set()
    while pending:
        uuid = pending.pop()
        if uuid in found or uuid not in by_uuid:
            continue
        found.add(uuid)
        pending += [c["field_uuid"] for c in by_uuid[uuid].get("conditions", [])]
    return found


def _shape(field: Field) -> dict[str, Any]:
    shaped: dict[str, Any] = {
        "uuid": field["uuid"],
        "name": field["name"],
        "type": field["type"],
        "areas": [{"attachment_uuid": a["attachment_uuid"]} for a in field.get("areas", [])],
    }
    for key in ("title", "options", "conditions"):
        if field.get(key):
            shaped[key] = field[key]
    if field.get("default_value") not in (None, ""):
        shaped["default_value"] = _value(field, field.get("default_value"))
    return shaped


def _value(field: Field, value: object) -> object:
    return bool(value) if field["type"] in field_values.FILE_TYPES else value
