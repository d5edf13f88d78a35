"""What a signer may do now, as rules of records: refusals of the API's and the signing form's changes, whether an
invitation can go again, and the values a completion stores."""

from __future__ import annotations

from datetime import datetime

from signsvc.infra import errors
from signsvc.submissions import condition_values, field_options, field_values, formula_values, statuses
from signsvc.submissions.values import PreparedValues
from storage.records import Submission, Submitter
from storage.shapes import Field, FieldValues


def refuse_finished_by_api(submission: Submission, submitter: Submitter) -> None:
    """A completed submitter, or any submitter of a completed submission (a viewer who never completed)."""
    if submitter.completed_at or submission.completed_at:
        raise errors.Invalid("Submitter has already completed the submission.")
    if submitter.declined_at:
        raise errors.Invalid("Submitter has already declined the submission.")


def resend_refusal(
    submission: Submission, submitter: Submitter, submitters: list[Submitter], now: datetime
) -> str | None:
    """Why the submitter cannot be sent their invitation again now (`Submitters.resend`), if anything: the
    console offers it to the others."""
    if submitter.completed_at or submission.completed_at:
        return "Submitter has already completed the submission."
    if submitter.declined_at:
        return "Submitter has already declined the submission."
    if submission.archived_at:
        return "Submission has been archived."
    if (status := statuses.submission_status(submission, now)) != "pending":
        return f"Submission has been {status}."
    if not submitter.email:
        return "Submitter has no email address to send the invitation to."
    if not statuses.turn_has_come(submission, submitter, submitters):
        return "It is not this signer's turn yet: the signers before them have not completed"
    return None


def refuse_viewer(submission: Submission, submitter: Submitter) -> None:
    """The signing form's values, completion and decline are not for a viewer."""
    if statuses.is_viewer(submission, submitter):
        raise errors.Invalid("Form is view only.")


def refuse_readonly(fields: list[Field], prepared: PreparedValues) -> None:
    for field in fields:
        if field.get("readonly") and field["uuid"] in prepared.values:
            raise errors.Invalid(f"{field['name']} is a read-only field")


def require_fields(submission: Submission, submitter: Submitter, submitters: list[Submitter]) -> None:
    """The first required field the submitter left empty: 422 naming it (a field that does not apply is none)."""
    fields = field_values.role_fields(submission.fields, submitter.role_uuid)
    _, hidden = settled_values(submission, submitter, submitters, submitter.field_values)
    missing = field_values.missing_required([f for f in fields if f["uuid"] not in hidden], submitter.field_values)
    if missing is not None:
        raise errors.Invalid(f"{missing['name']} is required")


def settled_values(
    submission: Submission, submitter: Submitter, submitters: list[Submitter], own: FieldValues
) -> tuple[FieldValues, set[str]]:
    """The submitter's values as completion stores them (without those of the fields that do not apply, with the
    service's formula results) and the fields that do not apply, a condition on a formula field reading its result."""
    return condition_values.settled(
        submission,
        submitter,
        submitters,
        own,
        lambda current: formula_values.computed(submission, submitter, submitters, current),
    )


def with_defaults(submission: Submission, submitter: Submitter, now: datetime) -> FieldValues:
    """The submitter's values with the fields' defaults under them, their placeholders (`{{date}}`, `{{name}}` ...)
    filled for this submitter at completion time. Defaults that name files are not here: `values.defaults_stored`
    makes them the submission's own."""
    fields = field_values.role_fields(submission.fields, submitter.role_uuid)
    signer = field_options.signer_of(submitter)
    defaults: FieldValues = {
        f["uuid"]: field_options.resolved_default(f, f["default_value"], signer, now)
        for f in fields
        if f.get("default_value") not in (None, "") and f["type"] not in field_values.FILE_TYPES
    }
    by_uuid = {f["uuid"]: f for f in fields}
    given: FieldValues = {  # a date the signer set to "today" is the completion day; other values stay as typed
        uuid: now.date().isoformat() if _is_today(by_uuid.get(uuid), value) else value
        for uuid, value in submitter.field_values.items()
    }
    return {**defaults, **given}


def _is_today(field: Field | None, value: object) -> bool:
    return (
        field is not None and field["type"] == "date" and isinstance(value, str) and value in field_options.TODAY_WORDS
    )
