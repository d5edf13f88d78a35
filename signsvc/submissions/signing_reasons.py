"""Where a signature's signing reason is kept: among the signer's values, under its signature field's uuid with
`:reason` after it, as the reference keeps it as a read-only "Reason" value of its own beside the signature. Pure:
the API's values, webhooks and the audit log read it from the stored values."""

from __future__ import annotations

from storage.shapes import Field, FieldValues

SUFFIX = ":reason"
NAME = "Reason"  # the name it is shown under, after its signature's value


def key(field_uuid: str) -> str:
    return f"{field_uuid}{SUFFIX}"


def kept(field: Field, values: FieldValues) -> str | None:
    """The reason kept for a signed signature field; None when there is none or the field holds no signature."""
    if field["type"] != "signature" or values.get(field["uuid"]) in (None, ""):
        return None
    found = values.get(key(field["uuid"]))
    return found if isinstance(found, str) and found else None
