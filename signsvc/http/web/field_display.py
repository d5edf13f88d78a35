"""How the signing form shows a field's options: its `title` and `description` as a small, safe Markdown (`markdown`),
a date in its field's format, and the classes that draw its box on the page as the documents will (`align`,
`valign`, `font`, `font_type`, `color`), and its `font_size`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from signsvc.http.web import markdown
from signsvc.pdf import colors, text_size, value_text
from signsvc.submissions import field_values
from signsvc.templates import field_option_rules
from storage.shapes import Field

FONTS = {"times": "font-times", "courier": "font-courier", "helvetica": "font-helvetica"}
TYPES = {"bold": "bold", "italic": "italic", "bold_italic": "bold italic"}


def inline(text: object) -> Markup:
    """A title: one line of Markdown."""
    return markdown.inline(text)


def block(text: object) -> Markup:
    """A description: Markdown text."""
    return markdown.block(text)


def date_text(field: Field, value: Any) -> str:
    """A date field's value as its input shows it: in the field's format (empty for "today", which the form's script
    fills in the signer's time zone)."""
    if not value or value == field_values.TODAY:
        return ""
    return value_text.format_date(value, date_format(field))


def date_format(field: Field) -> str:
    return str((field.get("preferences") or {}).get("format") or value_text.DATE_FORMAT)


def box_classes(field: Field) -> str:
    """The classes that lay out a field's value in its box as the documents do, each after a space."""
    preferences = field.get("preferences") or {}
    found = [
        f"align-{preferences.get('align')}" if preferences.get("align") in ("center", "right") else "",
        f"valign-{preferences.get('valign')}" if preferences.get("valign") in ("top", "bottom") else "",
        FONTS.get(str(preferences.get("font") or "").lower(), ""),
        TYPES.get(str(preferences.get("font_type") or "").lower(), ""),
    ]
    return "".join(f" {name}" for name in found if name)


def font_size(field: Field, area: Mapping[str, Any], page_height: float) -> str:
    """The size in points the documents draw the field's text at in this area (its own `font_size`, no taller than
    the box), for the box to scale with the page; empty without a `font_size` of its own (the form's size)."""
    preferences = field.get("preferences") or {}
    if text_size.own(preferences) is None:
        return ""
    size = text_size.in_box(preferences, float(area.get("h") or 0) * page_height)
    return f"{size:.3g}" if size > 0 else ""


def number_keyboard(field: Field) -> str:
    """The `inputmode` of a number field's input: "decimal" (a phone's pad of digits and a point) where the field's
    `validation.min` rules out a negative number; none otherwise, since that pad has no minus sign and the number
    keyboard a phone shows for `type=number` has."""
    low = field_option_rules.number_of((field.get("validation") or {}).get("min"))
    return "decimal" if low is not None and low >= 0 else ""


def color(field: Field) -> str:
    """The field's `color` as the documents draw it, in hex (anything else is not put on the page)."""
    return colors.hex_of((field.get("preferences") or {}).get("color")) or ""
