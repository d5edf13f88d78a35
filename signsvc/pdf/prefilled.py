"""Values filled in a PDF's form before upload that their widgets don't show: text without an appearance,
or with one that is empty or out of date (/NeedAppearances, as LibreOffice and Evince leave them), and
boxes checked without an appearance of it. Filling draws them on the overlay before flattening."""

from __future__ import annotations

import re
from dataclasses import dataclass
from dataclasses import field as data_field
from typing import Any

import pypdf
from pypdf.generic import ArrayObject, ContentStream, DictionaryObject, NameObject, StreamObject

from signsvc.pdf import geometry
from signsvc.pdf.acroform import (
    COMB,
    HIDDEN,
    MULTILINE,
    PUSH,
    RADIO,
    chain_of,
    get,
    inherited,
    integer,
    left_out_if_broken,
    on_state,
    printable,
    string_of,
    text_of,
    widgets,
)

_SHOWING_TEXT = {b"Tj", b"TJ", b"'", b'"', b"Do"}  # Do: a nested form may hold the text
_PAINTING = _SHOWING_TEXT | {b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*", b"S", b"s", b"sh", b"INLINE IMAGE"}
_FONT_SIZE = re.compile(r"([0-9.]+)\s+Tf\b")  # in a default appearance (/DA): "/Helv 12 Tf 0 g"


@dataclass(frozen=True)
class Prefilled:
    """A value filled in before upload that its widget doesn't show, to be drawn in the widget's area.

    `kind` is text, cells or check; `stale` says the widget's appearance shows something else (a viewer
    would draw it anew from the value), so it must go.
    """

    widget: DictionaryObject
    page: int
    area: dict[str, float]  # relative to the displayed page, as fields' areas
    kind: str
    text: str = ""
    preferences: dict[str, Any] = data_field(default_factory=dict)
    cells: int = 0
    stale: bool = False


def unshown(document: pypdf.PdfWriter, frames: list[geometry.Frame]) -> list[Prefilled]:
    """The values of the document's form its widgets don't show: text without an appearance, or with one
    that is empty or out of date (/NeedAppearances), and boxes checked without an appearance of it. A
    widget that can't be read is left to show what it shows."""
    need_appearances = bool(get(get(document.root_object, "/AcroForm"), "/NeedAppearances"))
    found = []
    for index, page in enumerate(document.pages):
        for widget in widgets(page):
            with left_out_if_broken(f"the value of a widget on page {index + 1}"):
                if value := _unshown_value(widget, index, frames[index], need_appearances):
                    found.append(value)
    return found


def _unshown_value(
    widget: DictionaryObject, page: int, frame: geometry.Frame, need_appearances: bool
) -> Prefilled | None:
    """The widget's value when it is shown on the page but its appearance doesn't show it."""
    rect = geometry.numbers(get(widget, "/Rect"))
    area = frame.relative(rect) if rect else None
    if area is None or integer(get(widget, "/F")) & HIDDEN:
        return None
    chain = chain_of(widget)
    field_type, flags = inherited(chain, "/FT"), integer(inherited(chain, "/Ff"))
    if field_type == "/Btn" and not flags & PUSH:
        return _unshown_check(widget, chain, page, area, radio=bool(flags & RADIO))
    text = _value_text(chain) if field_type in ("/Tx", "/Ch") else ""
    appearance = _normal_appearance(widget)
    if not text or (not need_appearances and _paints(appearance, _SHOWING_TEXT)):
        return None
    stale = need_appearances and appearance is not None
    if field_type == "/Tx" and flags & COMB and (cells := integer(inherited(chain, "/MaxLen"))) > 0:
        return Prefilled(widget, page, area, "cells", text, cells=cells, stale=stale)
    return Prefilled(widget, page, area, "text", text, _text_preferences(chain, flags), stale=stale)


def _unshown_check(
    widget: DictionaryObject, chain: list[DictionaryObject], page: int, area: dict[str, float], radio: bool
) -> Prefilled | None:
    """A check for a box or radio button whose on-state is the field's value, unless its appearance shows it.
    Of buttons without appearances only checkboxes get one: a radio button without states can't say which it is."""
    value = inherited(chain, "/V")
    if not isinstance(value, NameObject) or value == "/Off":
        return None
    state = on_state(widget)
    if state is None and (radio or get(widget, "/AP") is not None):
        return None
    if state is not None and state != printable(value[1:]):
        return None  # another button of the group is the one on
    if get(widget, "/AS") == value and _paints(_normal_appearance(widget), _PAINTING):
        return None
    return Prefilled(widget, page, area, "check")


def _value_text(chain: list[DictionaryObject]) -> str:
    """A text or choice field's value as shown: a choice's display text, several choices joined by commas."""
    value = inherited(chain, "/V")
    values = [item.get_object() for item in value] if isinstance(value, ArrayObject) else [value]
    texts = [string_of(item) for item in values if isinstance(item, (str, bytes, StreamObject))]
    opt = inherited(chain, "/Opt")
    pairs = [item.get_object() for item in opt] if isinstance(opt, ArrayObject) else []
    shown = {text_of(pair[0]): text_of(pair) for pair in pairs if isinstance(pair, ArrayObject) and len(pair) == 2}
    text = ", ".join(shown.get(text, text) for text in texts)
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


def _text_preferences(chain: list[DictionaryObject], flags: int) -> dict[str, Any]:
    """The font size of the field's default appearance (0 is "fit"), its alignment (/Q), top for multiline."""
    preferences: dict[str, Any] = {}
    if (size := _FONT_SIZE.search(string_of(inherited(chain, "/DA")))) and _number(size.group(1)) > 0:
        preferences["font_size"] = _number(size.group(1))
    if align := {1: "center", 2: "right"}.get(integer(inherited(chain, "/Q"))):
        preferences["align"] = align
    if flags & MULTILINE:
        preferences["valign"] = "top"
    return preferences


def _normal_appearance(widget: DictionaryObject) -> StreamObject | None:
    """The appearance the widget shows: its normal one, or the one of its state (/AS) among several."""
    normal = get(get(widget, "/AP"), "/N")
    if isinstance(normal, DictionaryObject) and not isinstance(normal, StreamObject):
        state = get(widget, "/AS")
        normal = normal[state] if state is not None and state in normal else None
    return normal if isinstance(normal, StreamObject) else None


def _paints(appearance: StreamObject | None, operators: set[bytes]) -> bool:
    """Whether the appearance has a box to be drawn in and draws something with one of `operators`."""
    bbox = geometry.numbers(get(appearance, "/BBox"))
    if appearance is None or not bbox or bbox[0] == bbox[2] or bbox[1] == bbox[3]:
        return False
    try:
        return any(operator in operators for _, operator in ContentStream(appearance, None).operations)
    except Exception:  # a broken appearance: left to show what it shows, as before
        return True


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0
