"""A PDF's pages and AcroForm fields as plain data, for creating a template from a PDF.

Fields are found by walking each page's widget annotations: that gives every
widget's page and rectangle, which pypdf's `get_fields()` doesn't. Left out on purpose:
- push buttons, hidden widgets, read-only fields: no submitter fills them;
- fields that already hold a value: the sender filled them before uploading (`prefilled` finds those
  whose widgets don't show the value, for filling to draw it).
Names are kept as the PDF has them (the /T chain joined with "."), even "Text1": they are how a
caller addresses the field, and an empty name is left for the caller to number. What a real form
gets wrong never makes its PDF unusable: a field that can't be understood is left out, an option
without a name is given one, control characters are dropped from names; the first two are logged.
"""

from __future__ import annotations

import itertools
import logging
import re
from typing import Any

from pypdf.generic import ArrayObject, DictionaryObject, NameObject

from signsvc.pdf import geometry, reading
from signsvc.pdf.acroform import (
    COMB,
    COMBO,
    HIDDEN,
    MULTI,
    PUSH,
    RADIO,
    READ_ONLY,
    REQUIRED,
    chain_of,
    get,
    inherited,
    integer,
    left_out_if_broken,
    on_state,
    string_of,
    text_of,
    widgets,
)

log = logging.getLogger(__name__)

# DocuSeal's words for a placeholder entry ("Select…", "-- Choose --") of a combo box.
_PLACEHOLDER = re.compile(
    r"\b(select|choose|wählen|auswählen|sélectionner|choisir|seleccionar|elegir|seleziona|scegliere"
    r"|selecionar|escolher)\b",
    re.IGNORECASE,
)
_DATE_EX = re.compile(r"AFDate_(?:Format|Keystroke)Ex\(\s*[\"']([^\"']+)[\"']")
_DATE_INDEX = re.compile(r"AFDate_(?:Format|Keystroke)\(\s*(\d+)\s*\)")
# Acrobat's formats for AFDate_Format(n), the form of date action older forms use.
_DATE_FORMATS = [
    "m/d",
    "m/d/yy",
    "mm/dd/yy",
    "mm/yy",
    "d-mmm",
    "d-mmm-yy",
    "dd-mmm-yy",
    "yy-mm-dd",
    "mmm-yy",
    "mmmm-yy",
    "mmm d, yyyy",
    "mmmm d, yyyy",
    "m/d/yy h:MM tt",
    "m/d/yy HH:MM",
]


def inspect_pdf(data: bytes, *, max_pages: int = reading.MAX_PAGES) -> dict[str, Any]:
    """`{"pages": [{width, height}], "fields": [field]}`: sizes in points as displayed, areas relative.

    A field is `{name, type, required, areas: [{page, x, y, w, h}]}`, plus `options` (radio, select,
    multiple), `preferences: {format}` (date), `cell_count` (cells, whose areas also get `cell_w`); each
    radio area has the `option` it stands for. Raises PdfError.
    """
    with reading.reading(max_pages):
        reader = reading.open_pdf(data, max_pages=max_pages)
        pages: list[dict[str, float]] = []
        found: dict[Any, dict[str, Any]] = {}
        for index, page in enumerate(reader.pages):
            frame = geometry.frame(page)
            pages.append({"width": round(frame.width, 3), "height": round(frame.height, 3)})
            for widget in widgets(page):
                with left_out_if_broken(f"a widget on page {index + 1}"):
                    _collect(found, widget, index, frame)
        fields = [_usable_field(entry) for entry in found.values()]
        return {"pages": pages, "fields": [field for field in fields if field]}


def _collect(found: dict[Any, dict[str, Any]], widget: DictionaryObject, page: int, frame: geometry.Frame) -> None:
    """Adds the widget's area to its field; the widgets of one field may sit on several pages."""
    rect = geometry.numbers(get(widget, "/Rect"))
    area = frame.relative(rect) if rect else None
    if area is None or integer(get(widget, "/F")) & HIDDEN:
        return
    chain = chain_of(widget)
    name = ".".join(text_of(node["/T"]) for node in reversed(chain) if "/T" in node)
    state = on_state(widget)  # before `found` changes: a widget that can't be read adds nothing
    entry = found.setdefault(name or id(chain[-1]), {"name": name, "chain": chain, "areas": []})
    entry["areas"].append({"page": page, **area, "state": state})


def _usable_field(entry: dict[str, Any]) -> dict[str, Any] | None:
    with left_out_if_broken(f"the field {entry['name']!r}"):
        return _field(entry)
    return None


def _field(entry: dict[str, Any]) -> dict[str, Any] | None:
    chain, name, areas = entry["chain"], entry["name"], entry["areas"]
    flags = integer(inherited(chain, "/Ff"))
    kind = _kind(chain, flags, name)
    if kind is None or flags & READ_ONLY or _has_value(chain):
        return None
    if kind == "checkbox" and len({area["state"] for area in areas} - {None}) > 1:
        kind = "radio"  # same-named boxes with different on-states: Acrobat's exclusive group
    field = {"name": name, "type": kind, "required": bool(flags & REQUIRED)}
    if kind == "radio":
        return _radio(field, chain, areas)
    areas = [{key: value for key, value in area.items() if key != "state"} for area in areas]
    return {**field, **_details(kind, chain, areas)}


def _details(kind: str, chain: list[DictionaryObject], areas: list[dict[str, Any]]) -> dict[str, Any]:
    """What a field of this kind adds, its areas last."""
    if kind in ("select", "multiple"):
        options = _choices(inherited(chain, "/Opt"))
        # Nothing to choose from: an editable combo box at best.
        return {"options": options, "areas": areas} if options else {"type": "text", "areas": areas}
    if kind == "date":
        return {"preferences": {"format": _date_format(chain)}, "areas": areas}
    if kind == "cells":
        cells = integer(inherited(chain, "/MaxLen"))
        return {"cell_count": cells, "areas": [{**area, "cell_w": round(area["w"] / cells, 6)} for area in areas]}
    return {"areas": areas}


def _kind(chain: list[DictionaryObject], flags: int, name: str) -> str | None:
    field_type = inherited(chain, "/FT")
    if field_type == "/Tx":
        if flags & COMB and integer(inherited(chain, "/MaxLen")) > 0:
            return "cells"
        return "date" if _date_format(chain) else "text"
    if field_type == "/Btn":
        return None if flags & PUSH else "radio" if flags & RADIO else "checkbox"
    if field_type == "/Ch":
        return "multiple" if flags & MULTI and not flags & COMBO else "select"
    if field_type == "/Sig":
        return "initials" if "initial" in name.lower() else "signature"
    return None


def _radio(field: dict[str, Any], chain: list[DictionaryObject], areas: list[dict[str, Any]]) -> dict[str, Any] | None:
    """One area per option; the option is the widget's on-state, or its /Opt entry when the state is an index."""
    opt = inherited(chain, "/Opt")
    opt = [text_of(item) for item in opt] if isinstance(opt, ArrayObject) else []
    states = [area.pop("state") for area in areas]
    names = _option_names(field["name"], [state for state in dict.fromkeys(states) if state is not None], opt)
    shown = [{**area, "option": names[state]} for area, state in zip(areas, states, strict=True) if state is not None]
    return {**field, "options": list(dict.fromkeys(names.values())), "areas": shown} if shown else None


def _option_names(field_name: str, states: list[str], opt: list[str]) -> dict[str, str]:
    """Each on-state's option; one without a name (the state `/`, or an empty /Opt entry) is called
    "Option n" by its place, since a submitter can't choose an option that has no name."""
    names = {state: opt[int(state)] if state.isdecimal() and int(state) < len(opt) else state for state in states}
    taken = set(names.values())
    for number, state in enumerate(states, 1):
        if not names[state].strip():
            names[state] = next(name for n in itertools.count(number) if (name := f"Option {n}") not in taken)
            taken.add(names[state])
            log.warning(
                "PDF form: option %d of the radio field %r has no name; it is called %r",
                number,
                field_name,
                names[state],
            )
    return names


def _has_value(chain: list[DictionaryObject]) -> bool:
    value = inherited(chain, "/V")
    if isinstance(value, NameObject):
        return value != "/Off"
    if isinstance(value, (str, bytes)):
        return bool(value.strip())
    if isinstance(value, ArrayObject):
        return len(value) > 0
    return isinstance(value, DictionaryObject)  # a signature: the field is signed already


def _choices(opt: Any) -> list[str]:
    """The entries' display texts ([export, display] pairs show the second), without placeholders."""
    texts = [text_of(item) for item in opt] if isinstance(opt, ArrayObject) else []
    return list(dict.fromkeys(text for text in texts if text.strip() and not _PLACEHOLDER.search(text)))


def _date_format(chain: list[DictionaryObject]) -> str | None:
    """The format of an Acrobat date action (/AA /F or /K), in uppercase tokens (DD/MM/YYYY)."""
    actions = inherited(chain, "/AA")
    for key in ("/F", "/K"):
        script = string_of(get(get(actions, key), "/JS"))
        if match := _DATE_EX.search(script):
            return match.group(1).upper()
        if (match := _DATE_INDEX.search(script)) and int(match.group(1)) < len(_DATE_FORMATS):
            return _DATE_FORMATS[int(match.group(1))].upper()
    return None
