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
    known = {**_completed_values(submitters, submitter), **own}
    found: FieldValues = {}
    for field in mine:
        try:
            value = formulas.compute(submission.fields, known, field["uuid"])
        except FormulaError as error:
            raise errors.Invalid(f"{field['name']}: the formula cannot be computed: {error.message}") from None
        if value != "":
            found[field["uuid"]] = value
    return found


def form_data(fields: list[Field], own: list[Field], others: list[Submitter]) -> dict[str, Any] | None:
    """For the signing form's script: the fields the signer's formulas use (their formulas, types, names and
    defaults, through nested formulas) and the values of those that the submitters who completed gave; None
    without a formula. The signer's own values it reads from the form as they change."""
    by_uuid = {f["uuid"]: f for f in fields}
    waiting = [f["uuid"] for f in own if formulas.is_formula(f)]
    if not waiting:
        return None
    used: dict[str, Field] = {}
    while waiting:
        uuid = waiting.pop()
        if uuid in used or uuid not in by_uuid:
            continue
        used[uuid] = by_uuid[uuid]
        waiting += formulas.references_of(by_uuid[uuid])
    values = {k: v for k, v in _completed_values(others, None).items() if k in used}
    return {"fields": [_shown(f) for f in used.values()], "values": values}


def _completed_values(submitters: list[Submitter], besides: Submitter | None) -> Mapping[str, object]:
    return {
        uuid: value
        for s in submitters
        if s.completed_at and (besides is None or s.id != besides.id)
        for uuid, value in s.field_values.items()
    }


def _shown(field: Field) -> dict[str, Any]:
    shown: dict[str, Any] = {"uuid": field["uuid"], "name": field["name"], "type": field["type"]}
    if formula := formulas.formula_of(field):
        shown["formula"] = formula
    if "default_value" in field:
        shown["default_value"] = field["default_value"]
    return shown
