"""What conditions do to a submitter's values on every save and at completion: a field that does not apply (by
the values of every signer of the submission, the earlier signers' included) is neither stored nor required, and
a value sent for it is dropped. The rules themselves are `conditions`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from signsvc.infra import errors
from signsvc.infra.files import NewFile
from signsvc.submissions import conditions, signing_reasons
from signsvc.submissions.values import PreparedValues
from signsvc.templates import formulas
from signsvc.templates.formula_syntax import FormulaError
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
    return _hidden_with_formulas(submission, merged)


def _hidden_with_formulas(submission: Submission, values: Mapping[str, object]) -> set[str]:
    """The fields that do not apply, a condition on a formula field reading its result as the service computes it
    from `values` (a formula that cannot be computed has none): what applies and the results are taken in turn
    until what applies no longer changes."""
    gone = conditions.hidden_fields(submission.fields, values, submission.documents)
    computed = [f["uuid"] for f in submission.fields if formulas.is_formula(f)]
    if not computed:
        return gone
    for _ in range(len(submission.fields) + 2):
        current = {uuid: value for uuid, value in values.items() if uuid not in gone and uuid not in computed}
        computation = formulas.Computation(submission.fields, current)
        for uuid in computed:
            if uuid not in gone:
                try:
                    result = computation.stored(uuid)
                except FormulaError:
                    continue
                if result != "":
                    current[uuid] = result
        again = conditions.hidden_fields(submission.fields, current, submission.documents)
        if again == gone:
            break
        gone = again
    return gone


def settled(
    submission: Submission,
    submitter: Submitter,
    submitters: Iterable[Submitter],
    own: Mapping[str, _Value],
    compute: Callable[[dict[str, _Value]], Mapping[str, _Value]],
) -> tuple[dict[str, _Value], set[str]]:
    """`own` with the fields that do not apply dropped (their signatures' reasons too) and the formulas' results
    (`compute`: of the values as they stand) added, and the fields that do not apply: a condition may read a
    formula's result, and a formula the fields a condition hides, so the two are taken in turn until what applies
    no longer changes (a loop between them is refused when the template is saved, so each turn decides at least
    one more step of the chain)."""
    gone = hidden(submission, submitter, submitters, own)
    for _ in range(len(submission.fields) + 2):
        current = signing_reasons.without(own, gone)
        current |= {uuid: value for uuid, value in compute(current).items() if uuid not in gone}
        again = hidden(submission, submitter, submitters, current)
        if again == gone:
            return current, gone
        gone = again
    raise errors.Invalid("Formula infinite loop")  # unreachable while loops are refused when saved


def applying(
    submission: Submission, submitter: Submitter, submitters: Iterable[Submitter], own: Mapping[str, _Value]
) -> dict[str, _Value]:
    """`own` without the values of the fields that do not apply, nor their signatures' reasons."""
    return signing_reasons.without(own, hidden(submission, submitter, submitters, own))


def prepared_applying(
    submission: Submission, submitter: Submitter, submitters: Iterable[Submitter], prepared: PreparedValues
) -> set[str]:
    """Drops from `prepared` the values sent for fields that do not apply once they are saved, with the files made
    for them (never to be written); answers the fields that do not apply."""
    gone = hidden(submission, submitter, submitters, {**submitter.field_values, **prepared.values})
    _dropped(prepared, gone)
    return gone


def created_applying(
    fields: list[Field], documents: Iterable[Mapping[str, Any]], prepared: Iterable[PreparedValues]
) -> None:
    """Drops from each new submitter's `prepared` values (a submission's, given as it is created) those of the
    fields that do not apply by all of them together, with the files made for them."""
    together = list(prepared)
    if not any(f.get("conditions") for f in fields) and not any(d.get("conditions") for d in documents):
        return
    merged = {uuid: value for one in together for uuid, value in one.values.items()}
    gone = conditions.hidden_fields(fields, merged, documents)
    for one in together:
        _dropped(one, gone)


def _dropped(prepared: PreparedValues, gone: set[str]) -> None:
    dropped = [uuid for uuid in prepared.values if uuid in gone]
    made = [item for uuid in dropped for item in _items(prepared.values.pop(uuid)) if isinstance(item, NewFile)]
    prepared.files = [file for file in prepared.files if all(file is not item for item in made)]


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
