"""The size a field's text is drawn at in its box, in points: its own `font_size`, else the largest the documents
draw, never taller than the box's lines leave room for. The documents (`fill`) shrink it further until the widest
line fits; the signing form's boxes draw it at this size, scaled with the page. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_FONT_SIZE = 24.0
FILL = 0.65  # font size as a share of a line's height in the box


def own(preferences: Mapping[str, Any]) -> float | None:
    """The field's `font_size` when it is one the documents can draw at."""
    value = preferences.get("font_size")
    try:
        number = float(value) if isinstance(value, (int, float, str)) else None
    except ValueError:
        return None
    return number if number is not None and 0 < number < 1000 else None


def in_box(preferences: Mapping[str, Any], height: float, lines: int = 1) -> float:
    """The size for `lines` lines in a box `height` points high, before any shrinking for width."""
    return min(own(preferences) or MAX_FONT_SIZE, height * FILL / max(lines, 1))
