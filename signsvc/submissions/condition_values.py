"""What conditions do to a submitter's values on every save and at completion: a field that does not apply (by
the values of every signer of the submission, the earlier signers' included) is neither stored nor required, and
a value sent for it is dropped. The rules themselves are `conditions`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

from signsvc.infra.files import NewFile
from signsvc.submissions import conditions
from signsvc.submissions.values import PreparedValues
from storage.records import Submission, Submitter
from storage.shapes import Field

_Value = TypeVar("_Value")


def hidden(
    submission: Submission, submitter: Submitter, submitters: Iterable[Submitter], own: Mapping[str, object]
) -> set[str]:
    """The fields of the submission that do not apply while `submitter`'s values are `own` and the others' as
    stored."""
    if not has_conditions(submission):
        return set()
    merged: dict[str, object] = {}
    for other in submitters:
        if other.id != submitter.id:
            merged.update(other.field_values)
    merged.update(own)
    return conditions.hidden_fields(submission.fields, merged, submission.documents)


def applying(
    submission: Submission, submitter: Submitter, submitters: Iterable[Submitter], own: Mapping[str, _Value]
) -> dict[str, _Value]:
    """`own` without the values of the fields that do not apply."""
    gone = hidden(submission, submitter, submitters, own)
    return {uuid: value for uuid, value in own.items() if uuid not in gone}


def prepared_applying(
    submission: Submission, submitter: Submitter, submitters: Iterable[Submitter], prepared: PreparedValues
) -> list[NewFile]:
    """Drops from `prepared` the values sent for fields that do not apply once they are saved, with the files made
    for them; answers those files (never to be written)."""
    gone = hidden(submission, submitter, submitters, {**submitter.field_values, **prepared.values})
    dropped = [uuid for uuid in prepared.values if uuid in gone]
    made = [item for uuid in dropped for item in _items(prepared.values.pop(uuid)) if isinstance(item, NewFile)]
    prepared.files = [file for file in prepared.files if all(file is not item for item in made)]
    return made


def visible_fields(submission: Submission, fields: list[Field], values: Mapping[str, object]) -> list[Field]:
    """Those of `fields` that apply for `values` (every signer's, by field uuid)."""
    if not has_conditions(submission):
        return fields
    gone = conditions.hidden_fields(submission.fields, values, submission.documents)
    return [field for field in fields if field["uuid"] not in gone]


def has_conditions(submission: Submission) -> bool:
    """Whether any field or document of the submission has conditions (without, nothing is hidden)."""
    return any(f.get("conditions") for f in submission.fields) or any(d.get("conditions") for d in submission.documents)


def _items(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else [value]
