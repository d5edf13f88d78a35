"""Where a signature's signing reason is kept: among the signer's values, under its signature field's uuid with
`:reason` after it, as the reference keeps it as a read-only "Reason" value of its own beside the signature. Pure:
the API's values, webhooks and the audit log read it from the stored values.

A reason belongs to the signature it was given with: it goes when its signature is removed or replaced. A
signature the signer gave in the form keeps its place empty until its reason is given (`awaits`); one given
through the API (or prefilled when the submission was created) has no place, and is asked no reason."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

from storage.shapes import Field, FieldValues

SUFFIX = ":reason"
NAME = "Reason"  # the name it is shown under, after its signature's value
_AWAITED = ""  # the place of the reason of a signature the signer gave, before the reason is given

_Value = TypeVar("_Value")


def key(field_uuid: str) -> str:
    return f"{field_uuid}{SUFFIX}"


def field_of(value_key: str) -> str:
    """The field a key of the stored values belongs to: its own uuid, or the signature's a reason is kept for."""
    return value_key.removesuffix(SUFFIX)


def kept(field: Field, values: FieldValues) -> str | None:
    """The reason kept for a signed signature field; None when there is none or the field holds no signature."""
    if field["type"] != "signature" or values.get(field["uuid"]) in (None, ""):
        return None
    found = values.get(key(field["uuid"]))
    return found if isinstance(found, str) and found else None


def by_signer(field: Field, values: FieldValues) -> bool:
    """Whether the field's signature is one the signer gave in the form (asked a reason when the field asks one),
    not one given through the API."""
    return field["type"] == "signature" and values.get(field["uuid"]) not in (None, "") and key(field["uuid"]) in values


def follow(
    before: FieldValues,
    after: FieldValues,
    *,
    signed: Iterable[str] = (),
    reasons: Mapping[str, str] | None = None,
) -> FieldValues:
    """The values `after` a save, their reasons following their signatures: a reason kept `before` goes when its
    signature was removed or replaced; each signature the signer gave in this save (`signed`) awaits its reason;
    the `reasons` given in this save are kept."""
    found = {
        name: value
        for name, value in after.items()
        if not name.endswith(SUFFIX) or after.get(field_of(name)) == before.get(field_of(name))
    }
    for uuid in signed:
        found[key(uuid)] = _AWAITED
    for uuid, reason in (reasons or {}).items():
        found[key(uuid)] = reason
    return found


def without(values: Mapping[str, _Value], fields: Iterable[str]) -> dict[str, _Value]:
    """`values` without those of `fields`, nor the reasons kept for them."""
    gone = set(fields)
    return {name: value for name, value in values.items() if field_of(name) not in gone}
