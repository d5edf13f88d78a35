"""What the signing form's script needs to apply conditions (pages/static/form-conditions.js): the signer's fields
and the other fields their conditions name (through any chain, another signer's included), the values stored for
those other fields, and the documents' conditions. Nothing of another signer's that no condition reads is sent, what
is sent of theirs is a stand-in that answers the conditions as their value does (`stand_in`), and a file is sent as
`true` (there is one), never its id."""

from __future__ import annotations

from typing import Any

from signsvc.submissions import conditions, field_values
from storage.records import Submission, Submitter
from storage.shapes import Condition, Field

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
    naming = _conditions_naming(fields, documents)
    values = {
        f["uuid"]: _value(f, stored[f["uuid"]])
        if f.get("submitter_uuid") == submitter.role_uuid
        else stand_in(f, _value(f, stored[f["uuid"]]), naming.get(f["uuid"], []))
        for f in fields
        if f["uuid"] in stored and (f["uuid"] in wanted or f.get("readonly"))
    }
    return {"fields": [_shape(f) for f in field_values.named(fields)], "values": values, "documents": documents}


def _conditions_naming(fields: list[Field], documents: list[dict[str, Any]]) -> dict[str, list[Condition]]:
    found: dict[str, list[Condition]] = {}
    for condition in [c for f in fields for c in f.get("conditions", [])] + [
        c for d in documents for c in d["conditions"]
    ]:
        found.setdefault(condition["field_uuid"], []).append(condition)
    return found


def stand_in(field: Field, value: object, naming: list[Condition]) -> object:
    """Another signer's value as the page gets it: one that answers every condition naming the field as the value
    does, and tells nothing else (not a masked text, not a prefill the signer has not seen): blank stays blank, a
    value the conditions compare stays (they name it), a number becomes one on the same side of every number they
    compare with, anything else a mark that equals none of theirs."""
    if conditions.is_blank(value):
        return value
    if isinstance(value, bool):
        return value
    compared = [c for c in naming if c.get("action") in conditions.WITH_VALUE]
    numeric = {c.get("action") for c in compared} <= {"greater_than", "less_than"} and compared
    if field["type"] == "number" or (numeric and conditions.number_of(value) is not None):
        return _number_stand_in(conditions.number_of(value), [conditions.number_of(c.get("value")) for c in compared])
    texts = {_expected_text(field, c) for c in compared}
    given = [conditions.text_of(item) for item in (value if isinstance(value, list) else [value])]
    kept = [text for text in given if text in texts]
    mark = next(m for m in (f"*{n}" for n in range(len(texts) + 1)) if m not in texts)
    if isinstance(value, list):
        return kept or [mark]
    return kept[0] if kept else mark


def _expected_text(field: Field, condition: Condition) -> str | None:
    if field["type"] in conditions.OPTION_TYPES:
        return conditions.option_text(field, condition.get("value"))
    return conditions.text_of(condition.get("value"))


def _number_stand_in(number: float | None, bounds: list[float | None]) -> object:
    if number is None:
        return "*"  # not a number: compares with none
    marks = sorted({b for b in bounds if b is not None})
    for mark in marks:
        if abs(number - mark) < conditions.EPSILON:
            return mark
    below = [m for m in marks if m < number]
    above = [m for m in marks if m > number]
    if below and above:
        return (below[-1] + above[0]) / 2
    if below:
        return below[-1] + 1
    return above[0] - 1 if above else 0


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
