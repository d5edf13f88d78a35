"""Painting an overlay onto original pages without touching their content streams, and flattening forms.

Each page's original streams are wrapped in `q ... Q` and Form XObjects are painted after them: the
overlay page through the displayed-page matrix, and each shown widget's appearance in its /Rect, so
values filled in before upload stay visible once the widgets are removed.
"""

from __future__ import annotations

from typing import Any, cast

import pypdf
from pypdf.generic import ArrayObject, DecodedStreamObject, DictionaryObject, FloatObject, NameObject, StreamObject

from signsvc.pdf import geometry

_HIDDEN = 1 << 1 | 1 << 5  # annotation flags (/F): Hidden, NoView


def stamp(
    writer: pypdf.PdfWriter, overlay: pypdf.PdfReader | None, touched: list[int], frames: list[geometry.Frame]
) -> None:
    """Paints each page's widget appearances, then its overlay, after its untouched original content."""
    overlays = dict(zip(touched, overlay.pages, strict=True)) if overlay else {}
    opening = None  # one "q" stream shared by every painted page
    for index, page in enumerate(writer.pages):
        painted: list[tuple[StreamObject, tuple[float, ...] | None]] = list(_widget_appearances(page))
        if index in overlays:
            painted.append((_form(writer, overlays[index], frames[index]), None))
        if painted:
            if opening is None:
                opening = writer._add_object(_stream(b"q\n"))
            _paint(writer, page, opening, painted)


def _form(writer: pypdf.PdfWriter, overlay: pypdf.PageObject, frame: geometry.Frame) -> StreamObject:
    """The overlay page as a Form XObject drawn through the page's displayed-page matrix."""
    form = cast(StreamObject, overlay["/Contents"].clone(writer))
    form.update(
        {
            NameObject("/Type"): NameObject("/XObject"),
            NameObject("/Subtype"): NameObject("/Form"),
            NameObject("/BBox"): _array((0, 0, frame.width, frame.height)),
            NameObject("/Matrix"): _array(frame.matrix),
            NameObject("/Resources"): overlay["/Resources"].clone(writer),
        }
    )
    return form


def flatten(writer: pypdf.PdfWriter) -> None:
    """Removes the form: its widgets (their appearances already painted by `stamp`) and /AcroForm."""
    writer.remove_annotations("/Widget")
    writer.root_object.pop(NameObject("/AcroForm"), None)


def _widget_appearances(page: pypdf.PageObject) -> list[tuple[StreamObject, tuple[float, ...]]]:
    """Each shown widget's normal appearance, with the matrix that puts it in its /Rect (PDF 32000 12.5.5)."""
    found = []
    annots = _get(page, "/Annots")
    for annot in annots if isinstance(annots, ArrayObject) else []:
        annot = annot.get_object()
        if _get(annot, "/Subtype") != "/Widget" or _int(_get(annot, "/F")) & _HIDDEN:
            continue
        appearance = _appearance(annot)
        rect = geometry.numbers(_get(annot, "/Rect"))
        if appearance is None or rect is None:
            continue
        if matrix := _placement(appearance, rect):
            found.append((appearance, matrix))
    return found


def _appearance(annot: DictionaryObject) -> StreamObject | None:
    normal = _get(_get(annot, "/AP"), "/N")
    if isinstance(normal, DictionaryObject) and not isinstance(normal, StreamObject):
        normal = _get(normal, _get(annot, "/AS"))  # a dictionary of states: the one the widget is in
    return normal if isinstance(normal, StreamObject) and normal.indirect_reference is not None else None


def _placement(appearance: StreamObject, rect: list[float]) -> tuple[float, ...] | None:
    bbox = geometry.numbers(_get(appearance, "/BBox"))
    a, b, c, d, e, f = geometry.numbers(_get(appearance, "/Matrix"), 6) or (1, 0, 0, 1, 0, 0)
    if bbox is None:
        return None
    corners = [(x * a + y * c + e, x * b + y * d + f) for x in (bbox[0], bbox[2]) for y in (bbox[1], bbox[3])]
    xs, ys = [x for x, _ in corners], [y for _, y in corners]
    width, height = max(xs) - min(xs), max(ys) - min(ys)
    if width <= 0 or height <= 0:
        return None
    sx, sy = (abs(rect[2] - rect[0])) / width, (abs(rect[3] - rect[1])) / height
    return sx, 0, 0, sy, min(rect[0], rect[2]) - min(xs) * sx, min(rect[1], rect[3]) - min(ys) * sy


def _paint(
    writer: pypdf.PdfWriter,
    page: pypdf.PageObject,
    opening: Any,
    painted: list[tuple[StreamObject, tuple[float, ...] | None]],
) -> None:
    """Wraps the original content streams in q ... Q (unchanged) and paints the XObjects after them."""
    resources = DictionaryObject(_get(page, "/Resources") or {})
    xobjects = DictionaryObject(_get(resources, "/XObject") or {})
    commands = [b"Q\n"]
    for form, matrix in painted:
        if _get(form, "/Subtype") != "/Form":
            form[NameObject("/Subtype")] = NameObject("/Form")
        name = _free_name(xobjects, "/SignsvcForm")
        xobjects[NameObject(name)] = form.indirect_reference
        place = b"%s cm " % " ".join(_real(n) for n in matrix).encode() if matrix else b""
        commands.append(b"q %s%s Do Q\n" % (place, name.encode()))
    resources[NameObject("/XObject")] = xobjects
    page[NameObject("/Resources")] = resources
    closing = writer._add_object(_stream(b"".join(commands)))
    page[NameObject("/Contents")] = ArrayObject([opening, *_contents(page), closing])


def _contents(page: pypdf.PageObject) -> list[Any]:
    """References to the page's content streams, as they are."""
    if "/Contents" not in page:
        return []
    contents = page.raw_get("/Contents")
    resolved = contents.get_object()
    return list(resolved) if isinstance(resolved, ArrayObject) else [contents]


def _get(node: Any, key: Any) -> Any:
    """`node[key]`, resolved; None when `node` isn't a dictionary or lacks the key."""
    return node[key] if isinstance(node, DictionaryObject) and key is not None and key in node else None


def _int(value: Any) -> int:
    try:
        return int(value) if value is not None else 0
    except (TypeError, ValueError, OverflowError):
        return 0


def _free_name(xobjects: DictionaryObject, stem: str) -> str:
    number = len(xobjects)
    while f"{stem}{number}" in xobjects:
        number += 1
    return f"{stem}{number}"


def _stream(data: bytes) -> DecodedStreamObject:
    stream = DecodedStreamObject()
    stream.set_data(data)
    return stream


def _array(numbers: tuple[float, ...]) -> ArrayObject:
    return ArrayObject(FloatObject(_real(n)) for n in numbers)


def _real(number: float) -> str:
    return f"{number:.4f}".rstrip("0").rstrip(".") or "0"
