"""A signature field's own preferences, checked when a template is saved: `format` (how it may be made), `reasons`
(the signing reasons the form offers) and `with_signature_id` (the signature's id drawn beside it)."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

from signsvc.infra import errors

FORMATS = ("drawn", "typed", "drawn_or_typed", "drawn_or_upload", "upload", "typed_or_upload")
MAX_REASONS = 20
REASON_LIMIT = 200


def check(preferences: Mapping[str, object], kind: str, where: errors.Location) -> None:
    """422 naming the key of a signature field's preferences that is not one the form and the documents can use."""
    if kind != "signature":
        return
    format, reasons = preferences.get("format"), preferences.get("reasons")
    if format is not None and format not in FORMATS:
        raise errors.at((*where, "format"), f"must be one of: {', '.join(FORMATS)} (or absent: every way)")
    if reasons is not None and not (
        isinstance(reasons, list)
        and len(reasons) <= MAX_REASONS
        and all(isinstance(reason, str) and 0 < len(reason) <= REASON_LIMIT for reason in reasons)
    ):
        raise errors.at(
            (*where, "reasons"), f"must be an array of at most {MAX_REASONS} texts of 1 to {REASON_LIMIT} characters"
        )
    for index, reason in enumerate(reasons or ()):
        # The form offers each as an option, whose value HTML reads back with line breaks made plain: a reason with
        # a control character could never be chosen.
        if any(unicodedata.category(char) == "Cc" for char in reason):
            raise errors.at(
                (*where, "reasons", index),
                "must not hold control characters (line breaks, tabs), which the form cannot offer",
            )
    if not isinstance(preferences.get("with_signature_id"), (bool, type(None))):  # 0 == False: not a boolean
        raise errors.at((*where, "with_signature_id"), "must be true or false")
