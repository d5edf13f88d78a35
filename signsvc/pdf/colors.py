"""A field's `preferences.color`: a name the service knows or a hex colour, the same in the signed documents and on
the signing form's boxes (a name the browser knows but the documents do not would differ). Light: no PDF library."""

from __future__ import annotations

import re

NAMES = {
    "black": "#000000",
    "white": "#ffffff",
    "blue": "#1d4ed8",
    "red": "#dc2626",
    "green": "#15803d",
    "gray": "#6b7280",
    "grey": "#6b7280",
}
# As the OpenAPI document writes it: a template's colour is one of these or refused when saved.
PATTERN = "^(#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})|" + "|".join(NAMES) + ")$"
_HEX = re.compile(r"#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})")


def hex_of(color: object) -> str | None:
    """The colour as `#rrggbb`, None when it is neither a known name nor a hex colour."""
    text = color.strip().lower() if isinstance(color, str) else ""
    if text in NAMES:
        return NAMES[text]
    if match := _HEX.fullmatch(text):
        digits = match.group(1)
        return "#" + (digits if len(digits) == 6 else "".join(digit * 2 for digit in digits))
    return None


def rgb(color: object) -> tuple[int, int, int] | None:
    if (found := hex_of(color)) is None:
        return None
    value = int(found[1:], 16)
    return value >> 16, value >> 8 & 255, value & 255
