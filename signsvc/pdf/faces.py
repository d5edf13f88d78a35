"""The face a text value is drawn in: a field's `preferences.font` (Times, Helvetica, Courier) and `font_type` (bold,
italic, bold_italic) as the PDF's standard fonts, which every reader has and which need no embedding, for text they can
write (Latin-1); any other text, and a field that names neither, in the service's Unicode text font."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

TEXT_FONT = "text"  # the name the fill gives its Unicode text font
FAMILIES = {"times": "Times", "helvetica": "Helvetica", "courier": "Courier"}
STYLES = {"bold": "B", "italic": "I", "bold_italic": "BI"}


def face(preferences: dict[str, Any], lines: Iterable[str]) -> tuple[str, str]:
    """(fpdf2 family, style) for text in a field of these preferences."""
    family = FAMILIES.get(str(preferences.get("font") or "").lower())
    style = STYLES.get(str(preferences.get("font_type") or "").lower(), "")
    if (family is None and not style) or not all(_standard(line) for line in lines):
        return TEXT_FONT, ""
    return family or "Helvetica", style


def _standard(text: str) -> bool:
    """Whether the standard fonts can write the text (fpdf2 writes them in Latin-1)."""
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True
