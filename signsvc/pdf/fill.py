"""Submitters' values drawn into a document and its own form flattened.

The values are drawn with fpdf2 onto one overlay page per touched page, upright and of the displayed
size; each overlay becomes a Form XObject painted through the page's displayed-page matrix after the
original content, which stays byte for byte as uploaded. The PDF's own widgets are painted the same
way, from their appearance, before they are removed, so values filled before upload stay visible; a
value whose widget doesn't show it (no appearance, an empty one, or one /NeedAppearances says is out
of date, as LibreOffice and Evince leave them) is drawn on the overlay like a submitter's.
"""

from __future__ import annotations

import io
import unicodedata
from dataclasses import dataclass, replace
from typing import Any

import pypdf
from fpdf import FPDF
from fpdf.fonts import TTFFont
from PIL import ExifTags, ImageOps

from signsvc.pdf import (
    caption_layout,
    colors,
    faces,
    font_cache,
    fonts,
    geometry,
    images,
    masks,
    prefilled,
    reading,
    stamping,
    text_size,
)
from signsvc.pdf.errors import PdfError
from signsvc.pdf.value_text import text_of

IMAGE_TYPES = {"signature", "initials", "image", "stamp"}
LEADING = 1.25
INK = (0, 0, 0)
MARK_INK = (16, 24, 64)
FOOTER_SIZE = 8.0  # points
FOOTER_HEIGHT = 14.0  # the footer's box: tall enough for FOOTER_SIZE at text_size.FILL
FOOTER_GAP = 6.0  # from the displayed page's bottom edge to the footer's box
FOOTER_MARGIN = 0.05  # either side, as a share of the displayed page's width


@dataclass(frozen=True)
class Box:
    """An area in displayed points, from the displayed page's top-left corner (as fpdf2 measures)."""

    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True)
class Mark:
    """One thing to draw: `text` (lines), `cells` (a character per cell), `check`, or `image` (a file uuid)."""

    kind: str
    box: Box
    content: str = ""
    preferences: Any = None
    cell_w: float | None = None


def fill_pdf(
    pdf: bytes,
    document_uuid: str,
    fields: list[dict[str, Any]],
    values: dict[str, object],
    files: dict[str, bytes],
    *,
    filenames: dict[str, str] | None = None,
    stamp: dict[str, Any] | None = None,
    font_dir: str | None = None,
    footer: str | None = None,
    captions: dict[str, list[str]] | None = None,
    info: dict[str, str] | None = None,
) -> bytes:
    """The document with every value drawn in its areas on this document, and its own form flattened.

    `values` are stored values by field uuid (field_values); image values name `files` by uuid, file values
    name `filenames`. `stamp` (`{name, role, time}`, or such a dict per `submitter_uuid`) is written in stamp
    fields without a value. `footer` (such as "Test document, not legally binding") is written small, in red,
    centred at the bottom of every displayed page. `captions` (lines by field uuid) are written beside a
    signature's image, as `with_signature_id` asks. `info` entries (such as `/DocumentID`) are added to the
    document's information dictionary. Raises PdfError for an unreadable PDF or image, or without
    a text font; characters no installed font has are drawn as a substitute (`fonts.substitute`).
    """
    with reading.reading():
        reader = reading.open_pdf(pdf)
        frames = [geometry.frame(page) for page in reader.pages]
        writer = pypdf.PdfWriter(clone_from=reader)
        prefilled = _prefilled_marks(writer, frames)
    marks = _marks(fields, values, document_uuid, frames, filenames or {}, stamp, captions or {})
    marks = _with_footer(_joined(prefilled, marks), frames, footer)
    overlay = _overlay(marks, frames, files, font_dir) if marks else None
    with reading.reading():
        stamping.stamp(writer, overlay, sorted(marks), frames)
        stamping.flatten(writer)
        if info:
            writer.add_metadata(info)
        output = io.BytesIO()
        writer.write(output)
    return output.getvalue()


# What to draw, page by page.


def _marks(
    fields: list[dict[str, Any]],
    values: dict[str, object],
    document_uuid: str,
    frames: list[geometry.Frame],
    filenames: dict[str, str],
    stamp: dict[str, Any] | None,
    captions: dict[str, list[str]],
) -> dict[int, list[Mark]]:
    marks: dict[int, list[Mark]] = {}
    for field in fields:
        value = values.get(field["uuid"])
        if value is None and field["type"] == "stamp":
            value = _stamp_text(field, stamp)
        if value is None or value == "" or value == []:
            continue
        for area in field.get("areas", []):
            if area.get("attachment_uuid") != document_uuid:
                continue
            page = area.get("page", 0)
            if not 0 <= page < len(frames):
                raise PdfError(
                    f"{field.get('name') or field['type']} is placed on page {page + 1}, "
                    f"but the document has {len(frames)} pages"
                )
            if mark := _mark(field, value, area, frames[page], filenames):
                marks.setdefault(page, []).extend(_captioned(mark, captions.get(field["uuid"])))
    return marks


CAPTION_SPLIT = 4.5  # an area wider than this many times its height has the caption beside the image, not below


def _captioned(mark: Mark, caption: list[str] | None) -> list[Mark]:
    """An image mark with its caption (the signature id, reason or signer, time): the image in the left half and the
    text in the right half of a wide area, else the image above and the text below."""
    if not caption or mark.kind != "image":
        return [mark]
    box = mark.box
    if box.w / box.h > CAPTION_SPLIT:
        image, text = Box(box.x, box.y, box.w / 2, box.h), Box(box.x + box.w / 2, box.y, box.w / 2, box.h)
    else:
        image, text = Box(box.x, box.y, box.w, box.h / 2), Box(box.x, box.y + box.h / 2, box.w, box.h / 2)
    return [replace(mark, box=image), Mark("caption", text, "\n".join(caption), {"align": "left"})]


def _prefilled_marks(writer: pypdf.PdfWriter, frames: list[geometry.Frame]) -> dict[int, list[Mark]]:
    """Marks for the values filled before upload that their widgets don't show; an out-of-date appearance
    is taken off its widget, so that only the value is painted."""
    marks: dict[int, list[Mark]] = {}
    for value in prefilled.unshown(writer, frames):
        if value.stale:
            del value.widget["/AP"]
        frame, area = frames[value.page], value.area
        box = Box(area["x"] * frame.width, area["y"] * frame.height, area["w"] * frame.width, area["h"] * frame.height)
        cell_w = box.w / value.cells if value.cells else None
        marks.setdefault(value.page, []).append(Mark(value.kind, box, value.text, value.preferences, cell_w))
    return marks


def _joined(first: dict[int, list[Mark]], then: dict[int, list[Mark]]) -> dict[int, list[Mark]]:
    return {page: [*first.get(page, []), *then.get(page, [])] for page in sorted(first.keys() | then.keys())}


def _with_footer(
    marks: dict[int, list[Mark]], frames: list[geometry.Frame], footer: str | None
) -> dict[int, list[Mark]]:
    """The marks with the footer's on every page, after the values; the marks as they are without a footer."""
    if not footer:
        return marks
    return {page: [*marks.get(page, []), _footer_mark(footer, frame)] for page, frame in enumerate(frames)}


def _footer_mark(footer: str, frame: geometry.Frame) -> Mark:
    """A line of small red text centred just above the displayed page's bottom edge."""
    margin = frame.width * FOOTER_MARGIN
    top = max(frame.height - FOOTER_GAP - FOOTER_HEIGHT, 0.0)
    box = Box(margin, top, frame.width - 2 * margin, min(FOOTER_HEIGHT, frame.height))
    return Mark("text", box, " ".join(footer.split()), {"font_size": FOOTER_SIZE, "align": "center", "color": "red"})


def _mark(
    field: dict[str, Any], value: object, area: dict[str, Any], frame: geometry.Frame, filenames: dict[str, str]
) -> Mark | None:
    kind, preferences = field["type"], field.get("preferences") or {}
    box = Box(area["x"] * frame.width, area["y"] * frame.height, area["w"] * frame.width, area["h"] * frame.height)
    if kind in IMAGE_TYPES and not isinstance(value, _StampText):
        return Mark("image", box, str(value))
    if kind == "checkbox":
        return Mark("check", box) if value is True or str(value).lower() in ("true", "1", "yes") else None
    if kind in ("radio", "multiple"):
        return _choice(field, value, area, box)
    mask = preferences.get("mask") if masks.applies(kind, preferences) else None
    if kind == "cells":
        shown = masks.masked(str(value), mask)
        return Mark("cells", box, shown, preferences, area["cell_w"] * frame.width if area.get("cell_w") else None)
    if kind == "file":
        uuids = value if isinstance(value, list) else [value]
        names = ", ".join(filenames[uuid] for uuid in uuids if uuid in filenames)
        return Mark("text", box, names, preferences) if names else None
    return Mark("text", box, masks.masked(text_of(kind, value, preferences), mask), preferences)


def _choice(field: dict[str, Any], value: object, area: dict[str, Any], box: Box) -> Mark | None:
    """A mark in an option's area when that option is chosen; in an area of no option, the chosen values."""
    chosen = [str(each) for each in value] if isinstance(value, list) else [str(value)]
    if "option_uuid" not in area:
        return Mark("text", box, ", ".join(chosen), field.get("preferences") or {})
    option = next((o["value"] for o in field.get("options", []) if o["uuid"] == area["option_uuid"]), None)
    return Mark("check", box) if option in chosen else None


class _StampText(str):
    """The text block a stamp field shows when no stamp image was given."""


def _stamp_text(field: dict[str, Any], stamp: dict[str, Any] | None) -> _StampText | None:
    if stamp and "name" not in stamp:
        stamp = stamp.get(field.get("submitter_uuid") or "")
    if not stamp:
        return None
    when = " ".join(filter(None, (stamp.get("role"), stamp.get("time"))))
    return _StampText("\n".join(line for line in ("Digitally signed by", stamp.get("name"), when) if line))


# Drawing the overlay pages.


def _overlay(
    marks: dict[int, list[Mark]], frames: list[geometry.Frame], files: dict[str, bytes], font_dir: str | None
) -> pypdf.PdfReader:
    """One upright page per touched page, in page order, as a parsed PDF."""
    pictures = {
        mark.content: _picture(files, mark.content) for page in marks.values() for mark in page if mark.kind == "image"
    }
    texts = {mark.content: _clean(mark.content) for page in marks.values() for mark in page if mark.kind in _TEXTS}
    paths, shown = _fonts(texts, font_dir)
    pdf = _document(paths, shaped=fonts.needs_shaping(shown.values()))
    try:
        for page in sorted(marks):
            pdf.add_page(format=(frames[page].width, frames[page].height))
            for mark in marks[page]:
                _DRAW[mark.kind](pdf, replace(mark, content=shown.get(mark.content, mark.content)), pictures)
        return pypdf.PdfReader(io.BytesIO(bytes(pdf.output())))
    finally:
        for font in pdf.fonts.values():
            if isinstance(font, TTFFont):
                font.close()  # fpdf2 closes only the fonts it wrote out; an error would leave the files open


def _fonts(texts: dict[str, str], font_dir: str | None) -> tuple[list[str], dict[str, str]]:
    """The font files the texts need (the text font, then each fallback font only if some text needs it), and each
    text as it can be shown: characters no font found has become `fonts.substitute`, a visible sign (logged)."""
    if not texts:
        return [], {}
    primary = fonts.check(font_dir)
    fallbacks, known = fonts.fallbacks_for(texts.values(), fonts.coverage(primary) | {ord("\n")}, font_dir)
    if undrawable := fonts.undrawable(texts.values(), known):
        fonts.warn_replaced(undrawable, "filled values")
    return [primary, *fallbacks], {raw: fonts.replaced(text, known) for raw, text in texts.items()}


def _document(paths: list[str], *, shaped: bool) -> FPDF:
    """A fresh FPDF with its own fonts (parsed once per process): never reused across documents. `shaped` runs
    its text through HarfBuzz (right-to-left and complex scripts), which only documents that have some pay for."""
    pdf = FPDF(unit="pt")
    pdf.set_margin(0)
    pdf.set_auto_page_break(False)
    pdf.c_margin = 0
    names = ["text", *(f"fallback{number}" for number in range(len(paths) - 1))]
    for name, path in zip(names, paths, strict=False):
        font_cache.add_font(pdf, name, path)
    if len(paths) > 1:
        pdf.set_fallback_fonts(names[1:], exact_match=False)
    if shaped:
        pdf.set_text_shaping(True)
    return pdf


def _clean(text: str) -> str:
    """Composed characters, and spaces for control characters a line can't show."""
    text = unicodedata.normalize("NFC", text)
    return "".join(char if char == "\n" or unicodedata.category(char)[0] != "C" else " " for char in text)


def _draw_text(pdf: FPDF, mark: Mark, pictures: dict[str, Picture]) -> None:
    lines = mark.content.split("\n")
    preferences, box = mark.preferences or {}, mark.box
    pad = min(2.0, box.w * 0.05)
    size = _fitted(pdf, lines, box.w - 2 * pad, box.h, preferences)
    height = size * LEADING
    top = {"top": box.y, "bottom": box.y + box.h - height * len(lines)}.get(
        preferences.get("valign") or "", box.y + (box.h - height * len(lines)) / 2
    )
    pdf.set_text_color(*_color(preferences.get("color")))
    align = {"center": "C", "right": "R"}.get(preferences.get("align") or "", "L")
    for index, line in enumerate(lines):
        pdf.set_xy(box.x + pad, top + index * height)
        pdf.cell(box.w - 2 * pad, height, line, align=align)


def _fitted(pdf: FPDF, lines: list[str], width: float, height: float, preferences: dict[str, Any]) -> float:
    """The font size from the box height (or the field's font size), shrunk until the widest line fits."""
    size = text_size.in_box(preferences, height, len(lines))
    family, style = faces.face(preferences, lines)
    pdf.set_font(family, style, size=max(size, 0.1))
    widest = max(pdf.get_string_width(line) for line in lines)
    if widest > width > 0:
        size *= width / widest
        pdf.set_font(family, style, size=max(size, 0.1))
    return size


def _draw_caption(pdf: FPDF, mark: Mark, pictures: dict[str, Picture]) -> None:
    """A signature's caption, each line at its own size (`caption_layout`), the rows centred in the box's height."""
    lines = mark.content.split("\n")
    preferences, box = mark.preferences or {}, mark.box
    pad = min(2.0, box.w * 0.05)
    family, style = faces.face(preferences, lines)
    rows = caption_layout.rows(
        lines, box.w - 2 * pad, box.h, lambda text: _unit_width(pdf, family, style, text), leading=LEADING
    )
    top = box.y + (box.h - sum(row.size * LEADING for row in rows)) / 2
    pdf.set_text_color(*_color(preferences.get("color")))
    for row in rows:
        pdf.set_font(family, style, size=row.size)
        pdf.set_xy(box.x + pad, top)
        pdf.cell(box.w - 2 * pad, row.size * LEADING, row.text, align="L")
        top += row.size * LEADING


def _unit_width(pdf: FPDF, family: str, style: str, text: str) -> float:
    """The text's width at font size 1 (measured at 10, where fpdf2 rounds nothing away)."""
    pdf.set_font(family, style, size=10)
    return pdf.get_string_width(text) / 10


def _draw_cells(pdf: FPDF, mark: Mark, pictures: dict[str, Picture]) -> None:
    chars = [char for char in mark.content if char != "\n"]
    box = mark.box
    cell = mark.cell_w or box.w / max(len(chars), 1)
    pdf.set_text_color(*_color((mark.preferences or {}).get("color")))
    for index, char in enumerate(chars):
        left = box.x + index * cell
        if left + cell > box.x + box.w + 0.01:
            break  # more characters than cells: the rest has nowhere to go
        size = _fitted(pdf, [char], cell * 0.9, box.h, mark.preferences or {})
        pdf.set_xy(left, box.y + (box.h - size * LEADING) / 2)
        pdf.cell(cell, size * LEADING, char, align="C")


def _draw_check(pdf: FPDF, mark: Mark, pictures: dict[str, Picture]) -> None:
    """A check mark of two strokes, square and centred in the area."""
    box = mark.box
    side = min(box.w, box.h) * 0.8
    left, top = box.x + (box.w - side) / 2, box.y + (box.h - side) / 2
    pdf.set_draw_color(*MARK_INK)
    pdf.set_line_width(side * 0.12)
    pdf.polyline([(left + side * x, top + side * y) for x, y in ((0.12, 0.55), (0.4, 0.82), (0.88, 0.18))])


def _draw_image(pdf: FPDF, mark: Mark, pictures: dict[str, Picture]) -> None:
    """The image fitted in the area with its aspect ratio, centred, turned as its EXIF orientation says."""
    picture, box = pictures[mark.content], mark.box
    turned = picture.orientation in (5, 6, 7, 8)
    shown_w, shown_h = (picture.height, picture.width) if turned else (picture.width, picture.height)
    scale = min(box.w / shown_w, box.h / shown_h)
    left, top = box.x + (box.w - shown_w * scale) / 2, box.y + (box.h - shown_h * scale) / 2
    drawn_w, drawn_h = picture.width * scale, picture.height * scale
    pdf.set_image_filter(picture.image_filter)
    with pdf.transform(images._orientation(picture.orientation, drawn_w, drawn_h).translate(left, top)):
        pdf.image(picture.source, x=0, y=0, w=drawn_w, h=drawn_h)
    pdf.set_image_filter("AUTO")


_DRAW = {"text": _draw_text, "caption": _draw_caption, "cells": _draw_cells, "check": _draw_check, "image": _draw_image}
_TEXTS = ("text", "caption", "cells")  # the marks that draw text: their characters are made drawable first


@dataclass(frozen=True)
class Picture:
    """An image value ready for fpdf2: its source, stored size, EXIF orientation and how to embed it."""

    source: Any
    width: int
    height: int
    orientation: int = 1
    image_filter: str = "AUTO"


def _picture(files: dict[str, bytes], uuid: str) -> Picture:
    """The image of a signature, initials, image or stamp value; PdfError when it is missing or broken."""
    if uuid not in files:
        raise PdfError(f"The image {uuid} of a signature or image field is missing")
    image = images._open(files[uuid])
    try:
        if image.format in ("JPEG", "MPO"):
            orientation = image.getexif().get(ExifTags.Base.Orientation, 1)
            width, height = image.size
            # A decode at 1/8 size proves the file whole; the JPEG then goes in as it is. fpdf2 passes
            # only plain JPEG through: a phone's MPO is re-encoded as JPEG, not made 10x bigger.
            image.draft(None, (width // 8, height // 8))
            image.load()
            return Picture(
                io.BytesIO(files[uuid]),
                width,
                height,
                orientation if orientation in range(1, 9) else 1,
                "DCTDecode" if image.format == "MPO" else "AUTO",
            )
        upright = ImageOps.exif_transpose(image)
        upright.load()
        return Picture(upright, upright.width, upright.height)
    except Exception as error:  # Pillow raises many types on a broken image
        raise PdfError(images.UNREADABLE) from error


def _color(name: Any) -> tuple[int, int, int]:
    return colors.rgb(name) or INK
