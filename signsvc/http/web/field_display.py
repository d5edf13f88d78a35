"""How the signing form shows a field's options: its `title` and `description` as a small, safe Markdown (everything
escaped first: no HTML of the author's reaches the page), a date in its field's format, and the classes that draw its
box on the page as the documents will (`align`, `valign`, `font`, `font_type`, `color`)."""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup, escape

from signsvc.pdf import value_text
from signsvc.submissions import field_values
from storage.shapes import Field

# On escaped text: what each inline mark becomes. Links only to http(s) and mailto addresses.
_INLINE = (
    (re.compile(r"`([^`\n]+)`"), r"<code>\1</code>"),
    (re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"__(?=\S)(.+?)(?<=\S)__"), r"<strong>\1</strong>"),
    (re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])"), r"<em>\1</em>"),
    (re.compile(r"(?<![\w_])_(?=\S)(.+?)(?<=\S)_(?![\w_])"), r"<em>\1</em>"),
)
_LINK = re.compile(r"\[([^\]\n]+)\]\(((?:https?://|mailto:)[^\s()\x00]+)\)")
_ITEM = re.compile(r"^\s*[-*+]\s+(.*)$")
_COLOR = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})|[a-zA-Z]{1,20}")
FONTS = {"times": "font-times", "courier": "font-courier", "helvetica": "font-helvetica"}
TYPES = {"bold": "bold", "italic": "italic", "bold_italic": "bold italic"}


def inline(text: object) -> Markup:
    """One line of Markdown (a title): bold, italic, code and links; line breaks as spaces."""
    return Markup(_marks(str(escape(" ".join(str(text or "").split())))))


def block(text: object) -> Markup:
    """Markdown text (a description): paragraphs, line breaks, bulleted lists, and the inline marks."""
    parts = []
    for paragraph in re.split(r"\n\s*\n", str(text or "").strip()):
        lines = [line for line in paragraph.splitlines() if line.strip()]
        if lines and all(_ITEM.match(line) for line in lines):
            items = "".join(f"<li>{_marks(str(escape(_ITEM.match(line).group(1))))}</li>" for line in lines)  # type: ignore[union-attr]
            parts.append(f"<ul>{items}</ul>")
        elif lines:
            parts.append("<p>" + "<br>".join(_marks(str(escape(line.strip()))) for line in lines) + "</p>")
    return Markup("".join(parts))


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


def color(field: Field) -> str:
    """The field's `color` when it is a colour name or a hex colour (anything else is not put on the page)."""
    found = str((field.get("preferences") or {}).get("color") or "")
    return found if _COLOR.fullmatch(found) else ""


def _marks(escaped: str) -> str:
    """The inline marks of escaped text; a link's address is set aside first, so no mark reaches into it."""
    addresses: list[str] = []

    def set_aside(match: re.Match[str]) -> str:
        addresses.append(match[2])
        return f"[{match[1]}](\x00{len(addresses) - 1}\x00)"

    escaped = _LINK.sub(set_aside, escaped.replace("\x00", ""))
    for pattern, replacement in _INLINE:
        escaped = pattern.sub(replacement, escaped)
    return re.sub(
        r"\[([^\]\n]+)\]\(\x00(\d+)\x00\)",
        lambda link: f'<a href="{addresses[int(link[2])]}" target="_blank" rel="noopener noreferrer">{link[1]}</a>',
        escaped,
    )
