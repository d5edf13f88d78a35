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

import contextlib
import itertools
import logging
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field as data_field
from typing import Any

import pypdf
from pypdf.errors import LimitReachedError, PdfReadError
from pypdf.generic import ArrayObject, ContentStream, DictionaryObject, NameObject, StreamObject

from signsvc.pdf import geometry, reading

log = logging.getLogger(__name__)

_READ_ONLY, _REQUIRED = 1 << 0, 1 << 1  # field flags (/Ff)
_COMB, _RADIO, _PUSH, _COMBO, _MULTI, _MULTILINE = 1 << 24, 1 << 15, 1 << 16, 1 << 17, 1 << 21, 1 << 12
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
                with _left_out_if_broken(f"a widget on page {index + 1}"):
                    _collect(found, widget, index, frame)
        fields = [_usable_field(entry) for entry in found.values()]
        return {"pages": pages, "fields": [field for field in fields if field]}


@contextlib.contextmanager
def _left_out_if_broken(what: str) -> Iterator[None]:
    """Leaves out (and logs) a widget or field whose contents can't be understood (a stream in an unknown
    encoding, an entry of an unexpected type), rather than refusing the whole PDF."""
    try:
        yield
    except (MemoryError, RecursionError, LimitReachedError, PdfReadError):
        raise  # the file itself is broken or too much there: filling it would fail too, so reading() refuses it
    except Exception as error:  # pypdf raises many types
        log.warning("PDF form: %s is left out, it can't be read (%s: %s)", what, type(error).__name__, error)


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
    state = _on_state(widget)  # before `found` changes: a widget that can't be read adds nothing
    entry = found.setdefault(name or id(chain[-1]), {"name": name, "chain": chain, "areas": []})
    entry["areas"].append({"page": page, **area, "state": state})


def _usable_field(entry: dict[str, Any]) -> dict[str, Any] | None:
    with _left_out_if_broken(f"the field {entry['name']!r}"):
        return _field(entry)
    return None


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
            log.warning("PDF form: option %d of the radio field %r has no name; it is called %r",
                        number, field_name, names[state])
    return names


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
    return next((_printable(str(state)[1:]) for state in normal if state != "/Off"), None)


def _choices(opt: Any) -> list[str]:
    """The entries' display texts ([export, display] pairs show the second), without placeholders."""
    texts = [_text(item) for item in opt] if isinstance(opt, ArrayObject) else []
    return list(dict.fromkeys(text for text in texts if text.strip() and not _PLACEHOLDER.search(text)))


def _text(item: Any) -> str:
    item = item.get_object()
    if isinstance(item, ArrayObject) and len(item) == 2:
        item = item[1].get_object()
    return _printable(item.decode("latin-1") if isinstance(item, bytes) else str(item))


def _printable(text: str) -> str:
    """Without control characters: a database can't store NUL, and a name or option can't show the others."""
    return "".join(char for char in text if unicodedata.category(char) != "Cc")


def _date_format(chain: list[DictionaryObject]) -> str | None:
    """The format of an Acrobat date action (/AA /F or /K), in uppercase tokens (DD/MM/YYYY)."""
    actions = _inherited(chain, "/AA")
    for key in ("/F", "/K"):
        script = _string(_get(_get(actions, key), "/JS"))
        if match := _DATE_EX.search(script):
            return match.group(1).upper()
        if (match := _DATE_INDEX.search(script)) and int(match.group(1)) < len(_DATE_FORMATS):
            return _DATE_FORMATS[int(match.group(1))].upper()
    return None


def _string(value: Any) -> str:
    """A PDF string or text stream (scripts, long values) as text."""
    if isinstance(value, StreamObject):
        return value.get_data().decode("latin-1")
    if isinstance(value, bytes):
        return value.decode("latin-1")
    return str(value) if value is not None else ""


def _int(value: Any) -> int:
    try:
        return int(value.get_object()) if value is not None else 0
    except (TypeError, ValueError, AttributeError, OverflowError):
        return 0


# Values filled before upload that their widgets don't show.

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


def prefilled(document: pypdf.PdfWriter, frames: list[geometry.Frame]) -> list[Prefilled]:
    """The values of the document's form its widgets don't show: text without an appearance, or with one
    that is empty or out of date (/NeedAppearances), and boxes checked without an appearance of it. A
    widget that can't be read is left to show what it shows."""
    need_appearances = bool(_get(_get(document.root_object, "/AcroForm"), "/NeedAppearances"))
    found = []
    for index, page in enumerate(document.pages):
        for widget in _widgets(page):
            with _left_out_if_broken(f"the value of a widget on page {index + 1}"):
                if value := _unshown_value(widget, index, frames[index], need_appearances):
                    found.append(value)
    return found


def _unshown_value(widget: DictionaryObject, page: int, frame: geometry.Frame,
                   need_appearances: bool) -> Prefilled | None:
    """The widget's value when it is shown on the page but its appearance doesn't show it."""
    rect = geometry.numbers(_get(widget, "/Rect"))
    area = frame.relative(rect) if rect else None
    if area is None or _int(_get(widget, "/F")) & _HIDDEN:
        return None
    chain = _chain(widget)
    field_type, flags = _inherited(chain, "/FT"), _int(_inherited(chain, "/Ff"))
    if field_type == "/Btn" and not flags & _PUSH:
        return _unshown_check(widget, chain, page, area, radio=bool(flags & _RADIO))
    text = _value_text(chain) if field_type in ("/Tx", "/Ch") else ""
    appearance = _normal_appearance(widget)
    if not text or (not need_appearances and _paints(appearance, _SHOWING_TEXT)):
        return None
    stale = need_appearances and appearance is not None
    if field_type == "/Tx" and flags & _COMB and (cells := _int(_inherited(chain, "/MaxLen"))) > 0:
        return Prefilled(widget, page, area, "cells", text, cells=cells, stale=stale)
    return Prefilled(widget, page, area, "text", text, _text_preferences(chain, flags), stale=stale)


def _unshown_check(widget: DictionaryObject, chain: list[DictionaryObject], page: int, area: dict[str, float],
                   radio: bool) -> Prefilled | None:
    """A check for a box or radio button whose on-state is the field's value, unless its appearance shows it.
    Of buttons without appearances only checkboxes get one: a radio button without states can't say which it is."""
    value = _inherited(chain, "/V")
    if not isinstance(value, NameObject) or value == "/Off":
        return None
    state = _on_state(widget)
    if state is None and (radio or _get(widget, "/AP") is not None):
        return None
    if state is not None and state != _printable(value[1:]):
        return None  # another button of the group is the one on
    if _get(widget, "/AS") == value and _paints(_normal_appearance(widget), _PAINTING):
        return None
    return Prefilled(widget, page, area, "check")


def _value_text(chain: list[DictionaryObject]) -> str:
    """A text or choice field's value as shown: a choice's display text, several choices joined by commas."""
    value = _inherited(chain, "/V")
    values = [item.get_object() for item in value] if isinstance(value, ArrayObject) else [value]
    texts = [_string(item) for item in values if isinstance(item, (str, bytes, StreamObject))]
    opt = _inherited(chain, "/Opt")
    pairs = [item.get_object() for item in opt] if isinstance(opt, ArrayObject) else []
    shown = {_text(pair[0]): _text(pair) for pair in pairs if isinstance(pair, ArrayObject) and len(pair) == 2}
    text = ", ".join(shown.get(text, text) for text in texts)
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


def _text_preferences(chain: list[DictionaryObject], flags: int) -> dict[str, Any]:
    """The font size of the field's default appearance (0 is "fit"), its alignment (/Q), top for multiline."""
    preferences: dict[str, Any] = {}
    if (size := _FONT_SIZE.search(_string(_inherited(chain, "/DA")))) and _number(size.group(1)) > 0:
        preferences["font_size"] = _number(size.group(1))
    if align := {1: "center", 2: "right"}.get(_int(_inherited(chain, "/Q"))):
        preferences["align"] = align
    if flags & _MULTILINE:
        preferences["valign"] = "top"
    return preferences


def _normal_appearance(widget: DictionaryObject) -> StreamObject | None:
    """The appearance the widget shows: its normal one, or the one of its state (/AS) among several."""
    normal = _get(_get(widget, "/AP"), "/N")
    if isinstance(normal, DictionaryObject) and not isinstance(normal, StreamObject):
        state = _get(widget, "/AS")
        normal = normal[state] if state is not None and state in normal else None
    return normal if isinstance(normal, StreamObject) else None


def _paints(appearance: StreamObject | None, operators: set[bytes]) -> bool:
    """Whether the appearance has a box to be drawn in and draws something with one of `operators`."""
    bbox = geometry.numbers(_get(appearance, "/BBox"))
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
