"""The values of a submitter's formula fields: computed by the service when the submitter completes, from the values
stored (a value a client sent for a formula field was ignored when given), and what the signing form needs to show
them live."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from signsvc.infra import errors
from signsvc.submissions import field_values
from signsvc.templates import formulas
from signsvc.templates.formula_syntax import FormulaError
from storage.records import Submission, Submitter
from storage.shapes import Field, FieldValues


def computed(
    submission: Submission, submitter: Submitter, submitters: list[Submitter], own: FieldValues
) -> FieldValues:
    """The submitter's formula fields' values from `own` (their values as completion stores them) and the values of
    the submitters who completed before; a 422 naming the field whose formula has no value (division by zero...).
    An empty text result is no value."""
    mine = [f for f in field_values.role_fields(submission.fields, submitter.role_uuid) if formulas.is_formula(f)]
    if not mine:
        return {}
    computation = formulas.Computation(submission.fields, {**_completed_values(submitters, submitter), **own})
    found: FieldValues = {}
    for field in mine:
        try:
            value = computation.stored(field["uuid"])
        except FormulaError as error:
            raise errors.Invalid(f"{field['name']}: the formula cannot be computed: {error.message}") from None
        if value != "":
            found[field["uuid"]] = value
    return found


def uuids(fields: list[Field]) -> set[str]:
    """The fields whose value the service computes: the form shows them read-only."""
    return {field["uuid"] for field in fields if formulas.is_formula(field)}


def form_data(fields: list[Field], own: list[Field], others: list[Submitter]) -> dict[str, Any] | None:
    """For the signing form's script: the fields the signer's formulas use (their formulas, types, names and
    defaults, through nested formulas, each formula naming fields by uuid) and the values of those that the
    submitters who completed gave; None without a formula. The signer's own values it reads from the form as they
    change."""
    waiting = [f["uuid"] for f in own if formulas.is_formula(f)]
    if not waiting:
        return None
    reader = formulas.Computation(fields, {})
    used: dict[str, Field] = {}
    while waiting:
        uuid = waiting.pop()
        if uuid in used:
            continue
        used[uuid] = reader.fields.by_uuid[uuid]
        if formulas.is_formula(used[uuid]):
            waiting += reader.references(uuid)
    values = {k: v for k, v in _completed_values(others, None).items() if k in used}
    return {"fields": [_shown(f, reader) for f in used.values()], "values": values}


def _completed_values(submitters: list[Submitter], besides: Submitter | None) -> Mapping[str, object]:
    return {
        uuid: value
        for s in submitters
        if s.completed_at and (besides is None or s.id != besides.id)
        for uuid, value in s.field_values.items()
    }


def _shown(field: Field, reader: formulas.Computation) -> dict[str, Any]:
    shown: dict[str, Any] = {"uuid": field["uuid"], "name": field["name"], "type": field["type"]}
    if formulas.is_formula(field):
        shown["formula"] = reader.as_stored(field["uuid"])
    if "default_value" in field:
        shown["default_value"] = field["default_value"]
    return shown
