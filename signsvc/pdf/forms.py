"""A PDF's pages and AcroForm fields as plain data, for creating a template from a PDF.

Fields are found by walking each page's widget annotations: that gives every
widget's page and rectangle, which pypdf's `get_fields()` doesn't. Left out on purpose:
- push buttons, hidden widgets, read-only fields: no submitter fills them;
- fields that already hold a value: the sender filled them before uploading.
Names are kept as the PDF has them (the /T chain joined with "."), even "Text1": they are how a
caller addresses the field, and an empty name is left for the caller to number.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pypdf.generic import ArrayObject, DictionaryObject, NameObject, StreamObject

from signsvc.pdf import geometry, reading

_READ_ONLY, _REQUIRED = 1 << 0, 1 << 1  # field flags (/Ff)
_COMB, _RADIO, _PUSH, _COMBO, _MULTI = 1 << 24, 1 << 15, 1 << 16, 1 << 17, 1 << 21
_HIDDEN = 1 << 1 | 1 << 5  # annotation flags (/F): Hidden, NoView
_MAX_DEPTH = 32  # /Parent chain; a crafted file may make it loop
# DocuSeal's words for a placeholder entry ("Select…", "-- Choose --") of a combo box.
_PLACEHOLDER = re.compile(
    r"\b(select|choose|wählen|auswählen|sélectionner|choisir|seleccionar|elegir|seleziona|scegliere"
    r"|selecionar|escolher)\b", re.IGNORECASE)
_DATE_EX = re.compile(r"AFDate_(?:Format|Keystroke)Ex\(\s*[\"']([^\"']+)[\"']")
_DATE_INDEX = re.compile(r"AFDate_(?:Format|Keystroke)\(\s*(\d+)\s*\)")
# Acrobat's formats for AFDate_Format(n), the form of date action older forms use.
_DATE_FORMATS = ["m/d", "m/d/yy", "mm/dd/yy", "mm/yy", "d-mmm", "d-mmm-yy", "dd-mmm-yy", "yy-mm-dd",
                 "mmm-yy", "mmmm-yy", "mmm d, yyyy", "mmmm d, yyyy", "m/d/yy h:MM tt", "m/d/yy HH:MM"]


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
            for widget in _widgets(page):
                _collect(found, widget, index, frame)
        fields = [_field(entry) for entry in found.values()]
        return {"pages": pages, "fields": [field for field in fields if field]}


def _widgets(page: DictionaryObject) -> Iterator[DictionaryObject]:
    annots = _get(page, "/Annots")
    for item in annots if isinstance(annots, ArrayObject) else []:
        annot = item.get_object()
        if _get(annot, "/Subtype") == "/Widget":
            yield annot


def _collect(found: dict[Any, dict[str, Any]], widget: DictionaryObject, page: int, frame: geometry.Frame) -> None:
    """Adds the widget's area to its field; the widgets of one field may sit on several pages."""
    rect = geometry.numbers(_get(widget, "/Rect"))
    area = frame.relative(rect) if rect else None
    if area is None or _int(_get(widget, "/F")) & _HIDDEN:
        return
    chain = _chain(widget)
    name = ".".join(_text(node["/T"]) for node in reversed(chain) if "/T" in node)
    entry = found.setdefault(name or id(chain[-1]), {"name": name, "chain": chain, "areas": []})
    entry["areas"].append({"page": page, **area, "state": _on_state(widget)})


def _field(entry: dict[str, Any]) -> dict[str, Any] | None:
    chain, name, areas = entry["chain"], entry["name"], entry["areas"]
    flags = _int(_inherited(chain, "/Ff"))
    kind = _kind(chain, flags, name)
    if kind is None or flags & _READ_ONLY or _has_value(chain):
        return None
    if kind == "checkbox" and len({area["state"] for area in areas} - {None}) > 1:
        kind = "radio"  # same-named boxes with different on-states: Acrobat's exclusive group
    field = {"name": name, "type": kind, "required": bool(flags & _REQUIRED)}
    if kind == "radio":
        return _radio(field, chain, areas)
    areas = [{key: value for key, value in area.items() if key != "state"} for area in areas]
    return {**field, **_details(kind, chain, areas)}


def _details(kind: str, chain: list[DictionaryObject], areas: list[dict[str, Any]]) -> dict[str, Any]:
    """What a field of this kind adds, its areas last."""
    if kind in ("select", "multiple"):
        options = _choices(_inherited(chain, "/Opt"))
        # Nothing to choose from: an editable combo box at best.
        return {"options": options, "areas": areas} if options else {"type": "text", "areas": areas}
    if kind == "date":
        return {"preferences": {"format": _date_format(chain)}, "areas": areas}
    if kind == "cells":
        cells = _int(_inherited(chain, "/MaxLen"))
        return {"cell_count": cells, "areas": [{**area, "cell_w": round(area["w"] / cells, 6)} for area in areas]}
    return {"areas": areas}


def _kind(chain: list[DictionaryObject], flags: int, name: str) -> str | None:
    field_type = _inherited(chain, "/FT")
    if field_type == "/Tx":
        if flags & _COMB and _int(_inherited(chain, "/MaxLen")) > 0:
            return "cells"
        return "date" if _date_format(chain) else "text"
    if field_type == "/Btn":
        return None if flags & _PUSH else "radio" if flags & _RADIO else "checkbox"
    if field_type == "/Ch":
        return "multiple" if flags & _MULTI and not flags & _COMBO else "select"
    if field_type == "/Sig":
        return "initials" if "initial" in name.lower() else "signature"
    return None


def _radio(field: dict[str, Any], chain: list[DictionaryObject], areas: list[dict[str, Any]]) -> dict[str, Any] | None:
    """One area per option; the option is the widget's on-state, or its /Opt entry when the state is an index."""
    opt = _inherited(chain, "/Opt")
    opt = [_text(item) for item in opt] if isinstance(opt, ArrayObject) else []
    shown = []
    for area in areas:
        state = area.pop("state")
        if state is not None:
            option = opt[int(state)] if state.isdecimal() and int(state) < len(opt) else state
            shown.append({**area, "option": option})
    options = list(dict.fromkeys(area["option"] for area in shown))
    return {**field, "options": options, "areas": shown} if options else None


def _chain(widget: DictionaryObject) -> list[DictionaryObject]:
    """The widget and the fields above it, nearest first."""
    chain = [widget]
    while "/Parent" in chain[-1] and len(chain) < _MAX_DEPTH:
        parent = chain[-1]["/Parent"]
        if not isinstance(parent, DictionaryObject) or any(parent is node for node in chain):
            break
        chain.append(parent)
    return chain


def _inherited(chain: list[DictionaryObject], key: str) -> Any:
    return next((node[key] for node in chain if key in node), None)


def _get(node: Any, key: str) -> Any:
    """`node[key]`, resolved; None when `node` isn't a dictionary or lacks the key."""
    return node[key] if isinstance(node, DictionaryObject) and key in node else None


def _has_value(chain: list[DictionaryObject]) -> bool:
    value = _inherited(chain, "/V")
    if isinstance(value, NameObject):
        return value != "/Off"
    if isinstance(value, (str, bytes)):
        return bool(value.strip())
    if isinstance(value, ArrayObject):
        return len(value) > 0
    return isinstance(value, DictionaryObject)  # a signature: the field is signed already


def _on_state(widget: DictionaryObject) -> str | None:
    normal = _get(_get(widget, "/AP"), "/N")
    # A stream is a single appearance; only a dictionary of them names the states.
    if not isinstance(normal, DictionaryObject) or isinstance(normal, StreamObject):
        return None
    return next((str(state)[1:] for state in normal if state != "/Off"), None)


def _choices(opt: Any) -> list[str]:
    """The entries' display texts ([export, display] pairs show the second), without placeholders."""
    texts = [_text(item) for item in opt] if isinstance(opt, ArrayObject) else []
    return list(dict.fromkeys(text for text in texts if text.strip() and not _PLACEHOLDER.search(text)))


def _text(item: Any) -> str:
    item = item.get_object()
    if isinstance(item, ArrayObject) and len(item) == 2:
        item = item[1].get_object()
    return item.decode("latin-1") if isinstance(item, bytes) else str(item)


def _date_format(chain: list[DictionaryObject]) -> str | None:
    """The format of an Acrobat date action (/AA /F or /K), in uppercase tokens (DD/MM/YYYY)."""
    actions = _inherited(chain, "/AA")
    for key in ("/F", "/K"):
        script = _script(_get(_get(actions, key), "/JS"))
        if match := _DATE_EX.search(script):
            return match.group(1).upper()
        if (match := _DATE_INDEX.search(script)) and int(match.group(1)) < len(_DATE_FORMATS):
            return _DATE_FORMATS[int(match.group(1))].upper()
    return None


def _script(script: Any) -> str:
    if isinstance(script, StreamObject):
        return script.get_data().decode("latin-1")
    return str(script) if script is not None else ""


def _int(value: Any) -> int:
    try:
        return int(value.get_object()) if value is not None else 0
    except (TypeError, ValueError, AttributeError, OverflowError):
        return 0
