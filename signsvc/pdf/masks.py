"""A text field's `preferences.mask`: how its value is shown to everyone but the signer who typed it (the signed
documents, the pages other signers see, emails). Light: no PDF library is loaded."""

from __future__ import annotations

import re

MASK = "X"
TYPES = ("text", "cells", "phone")  # the fields a mask applies to: on any other it is refused when saved
# Kept as they are, so that the masked value keeps its shape: spaces and the punctuation of numbers and codes.
_MASKED = re.compile(r"[^\s\-_\[\]()+?.,]")


def masked(text: str, mask: object) -> str:
    """`text` masked: `true` masks every character but spaces and `-_[]()+?.,`; an integer N > 0 keeps the first N
    characters, N < 0 the last |N| (as `true` when the text is no longer than that); anything else leaves it."""
    if mask is True:
        return _MASKED.sub(MASK, text)
    if isinstance(mask, float) and mask.is_integer():
        mask = int(mask)
    if isinstance(mask, bool) or not isinstance(mask, int) or mask == 0:
        return text
    if abs(mask) >= len(text):
        return _MASKED.sub(MASK, text)
    if mask > 0:
        return text[:mask] + _MASKED.sub(MASK, text[mask:])
    return _MASKED.sub(MASK, text[:mask]) + text[mask:]


def is_masked(preferences: object) -> bool:
    mask = preferences.get("mask") if isinstance(preferences, dict) else None
    return mask is True or (isinstance(mask, (int, float)) and not isinstance(mask, bool) and int(mask) != 0)


def applies(kind: str, preferences: object) -> bool:
    """Whether a field of this type and these preferences is shown masked."""
    return kind in TYPES and is_masked(preferences)
