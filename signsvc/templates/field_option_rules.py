"""The shapes of the field options the service honours, checked when a template's fields are saved (422 naming the
option): `preferences` `font`, `font_size`, `font_type`, `color`, `align`, `valign`, `mask`, `format`, and
`validation` `message`, `min`, `max` and `step` (its `pattern` is `patterns`' business). Other keys are kept as
given; null is none."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TypeGuard

from signsvc.infra import errors
from signsvc.pdf import colors, masks

FONTS = ("Times", "Helvetica", "Courier")
FONT_TYPES = ("bold", "italic", "bold_italic")
ALIGNS = ("left", "center", "right")
VALIGNS = ("top", "center", "bottom")
MAX_FONT_SIZE = 999
MAX_LENGTHS = {"title": 500, "description": 5_000}  # the form renders them as Markdown on every page it shows
# Written as the OpenAPI document writes them, and read as its validators read them (`search`: `$` also before a
# final line break), so that the service refuses exactly what the document calls invalid.
COLOR_PATTERN = colors.PATTERN
NUMBER_PATTERN = "^\\s*[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)\\s*$"
BOUND_PATTERN = "^\\s*([+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)|[0-9]{4}-[0-9]{2}-[0-9]{2}|\\{\\{?date\\}\\}?)\\s*$"
# A date is stored as a day: its format names the day (D), the month (M) and the year (YY), or what the signer types
# could not be read back.
DATE_FORMAT_PATTERN = "^(?=[\\s\\S]*D)(?=[\\s\\S]*M)(?=[\\s\\S]*YY)"
_COLOR, _NUMBER, _BOUND = re.compile(COLOR_PATTERN), re.compile(NUMBER_PATTERN), re.compile(BOUND_PATTERN)
_DATE_FORMAT = re.compile(DATE_FORMAT_PATTERN)


def check_preferences(preferences: Mapping[str, object], kind: str, where: errors.Location) -> None:
    for key, problem in (
        ("font", _one_of(preferences.get("font"), FONTS)),
        ("font_type", _one_of(preferences.get("font_type"), FONT_TYPES)),
        ("align", _one_of(preferences.get("align"), ALIGNS)),
        ("valign", _one_of(preferences.get("valign"), VALIGNS)),
        ("font_size", _font_size(preferences.get("font_size"))),
        ("color", _color(preferences.get("color"))),
        ("mask", _mask(preferences.get("mask"), kind)),
        ("format", _date_format(preferences.get("format")) if kind == "date" else _text(preferences.get("format"))),
    ):
        if problem:
            raise errors.at((*where, key), problem)


def check_validation(rules: Mapping[str, object], where: errors.Location) -> None:
    for key, problem in (
        ("message", _text(rules.get("message"))),
        ("min", _bound(rules.get("min"))),
        ("max", _bound(rules.get("max"))),
        ("step", _step(rules.get("step"))),
    ):
        if problem:
            raise errors.at((*where, key), problem)


def check_length(key: str, text: str, where: errors.Location) -> None:
    if len(text) > MAX_LENGTHS[key]:
        raise errors.at(where, f"is too long: at most {MAX_LENGTHS[key]} characters")


def number_of(value: object) -> float | None:
    """A `min`, `max` or `step` as a number: a JSON number, or a text that writes one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and _NUMBER.search(value):
        return float(value)
    return None


def _one_of(value: object, allowed: tuple[str, ...]) -> str | None:
    return None if value is None or value in allowed else f"must be one of: {', '.join(allowed)}"


def _font_size(value: object) -> str | None:
    if value is None:
        return None
    size = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    return (
        None if size is not None and 0 < size <= MAX_FONT_SIZE else f"must be a number above 0, at most {MAX_FONT_SIZE}"
    )


def _color(value: object) -> str | None:
    if value is None or (isinstance(value, str) and _COLOR.search(value)):
        return None
    return "must be a colour name (blue) or a hex colour (#1f4fd1, #c00)"


def _mask(value: object, kind: str) -> str | None:
    if value in (None, False, 0) or (kind not in masks.TYPES and not isinstance(value, (bool, int, float))):
        return None if value in (None, False, 0) else "must be true, false, or an integer"
    if kind not in masks.TYPES:
        return None  # kept as given and not applied: only text, cells and phone values are masked
    if isinstance(value, (bool, int)) or (isinstance(value, float) and value.is_integer()):
        return None
    return "must be true, false, or an integer (N > 0 keeps the first N characters, N < 0 the last)"


def _date_format(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        return errors.must_be(str)
    if not _DATE_FORMAT.search(value):
        return "must name the day (D or DD), the month (M, MM, MMM or MMMM) and the year (YY or YYYY), in capitals"
    return None


def _text(value: object) -> str | None:
    return None if value is None or isinstance(value, str) else errors.must_be(str)


def _bound(value: object) -> str | None:
    if value is None or (isinstance(value, str) and _BOUND.search(value)) or _is_number(value):
        return None
    return "must be a number, a date as YYYY-MM-DD, or {{date}} (today)"


def _step(value: object) -> str | None:
    if value is None or (isinstance(value, str) and _NUMBER.search(value)) or (_is_number(value) and value > 0):
        return None
    return "must be a number above 0"


def _is_number(value: object) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
