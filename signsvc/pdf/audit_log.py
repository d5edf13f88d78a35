"""The audit log PDF of a submission: who signed what, when and from where.

`render(log)` takes plain data and answers PDF bytes. `log` has this shape (keys not marked
required may be missing or None):

    {"title": str,                      # the submission's (or template's) name
     "envelope_id": str,                # required
     "test_mode": bool,                 # marks every page "Test document, not legally binding"
     "generated_at": str,               # required, ISO 8601; also the PDF's creation date
     "verify_url": str,                 # where the file can be verified
     "documents": [{"name": str, "original_sha256": str, "result_sha256": str}],
     "submitters": [{"role": str, "name": str, "email": str, "phone": str, "ip": str,
                  "user_agent": str, "completed_at": str (ISO 8601), "status": str,
                  "images": [{"label": str, "png": bytes}],  # PNG, JPEG, WebP, GIF or TIFF bytes
                  "values": [{"field": str, "value": str}]}],
     "events": [{"time": str (ISO 8601), "text": str}]}

Times without an offset are taken as UTC; every time is shown in UTC as `2026-01-01 12:00:00 UTC`.
Events are shown in time order (events of the same time keep their given order). Submitter details
that are missing or empty are left out. An image that can't be read is replaced by a note, since
the audit log must still be produced. The same log always gives the same bytes.

Fonts are found as `signsvc.pdf.fonts` says: DejaVu Sans, and Droid Sans Fallback added only when
some text has a character DejaVu lacks (it costs ~0.3 s); headings and labels are in DejaVu Sans
Bold, looked for the same way (Debian's `fonts-dejavu-core` has it), else in DejaVu Sans. Without
DejaVu Sans, or without the fallback font when the text needs it, `fonts.MissingFont` says what to install.
"""

from __future__ import annotations

import functools
import io
import unicodedata
import warnings
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from fpdf import FPDF
from PIL import Image, ImageOps

from signsvc.pdf import font_files, fonts, images
from signsvc.pdf.errors import PdfError

TEST_MODE = "Test document, not legally binding"
UNREADABLE_IMAGE = "Image could not be read"
MARGIN, TOP, BOTTOM = 42, 46, 48
LINE, SIZE, HEADING_LINE = 12, 9, 15  # body line height and font size, a heading's line height, in points
LABEL_WIDTH, TIME_WIDTH = 120, 128
IMAGE_BOX, IMAGE_GAP = (160, 56), 14
MAX_IMAGE_PIXELS = (1200, 420)  # about 540 dpi in the box: enough for any screen or printer
RED, GREY, LIGHT = (190, 25, 25), (100, 100, 100), (240, 240, 240)
FAMILY, FALLBACK = "dejavu", "fallback"
PAGES = "\0n\0"  # the page count's placeholder: no text drawn from the log can hold it, `_text` drops NUL
BOLD = ("DejaVuSans-Bold.ttf",)


def render(log: dict[str, Any], font_dir: str | None = None) -> bytes:
    """The audit log PDF of `log` (shape in the module docstring). Raises PdfError without an envelope
    id or for a time that isn't ISO 8601, and its `fonts.MissingFont` without a font the text needs."""
    if not isinstance(log, dict) or not log.get("envelope_id"):
        raise PdfError("An audit log needs an envelope id")
    generated_at = _utc(log.get("generated_at"), "generated_at")
    events = sorted(((_utc(event.get("time"), f"events[{number}].time"), _text(event.get("text")))
                     for number, event in enumerate(log.get("events") or [])), key=lambda event: event[0])
    submitters = log.get("submitters") or []
    # Every time is read before the document opens its font files, which only `output()` closes.
    completed = [_utc(submitter["completed_at"], f"submitters[{number}].completed_at") if submitter.get("completed_at")
                 else None for number, submitter in enumerate(submitters)]
    pdf = _document(log, _fonts(log, font_dir), generated_at)
    _summary(pdf, log, generated_at)
    for document in log.get("documents") or []:
        _document_hashes(pdf, document)
    for number, (submitter, completed_at) in enumerate(zip(submitters, completed, strict=True), 1):
        _submitter(pdf, submitter, number, completed_at)
    _events(pdf, events)
    return bytes(pdf.output())


def _fonts(log: dict[str, Any], font_dir: str | None) -> tuple[str, str, str | None]:
    """DejaVu Sans, its bold, and the CJK fallback font when some text of the log needs it (else None)."""
    regular = fonts.check(font_dir)
    bold = _bold_font(font_dir) or regular
    drawn = fonts.coverage(regular) & fonts.coverage(bold)
    lacking = next((char for text in _strings(log) for char in _text(text)
                    if ord(char) not in drawn and not char.isspace()), None)
    if lacking is None:
        return regular, bold, None
    if (fallback := fonts.fallback_font(font_dir)) is None:
        raise fonts.missing_cjk(lacking, font_dir)
    return regular, bold, fallback


@functools.cache
def _bold_font(font_dir: str | None) -> str | None:
    return font_files.locate(BOLD, font_dir)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


class _Pdf(FPDF):
    """fpdf2's document with this log's page furniture: the test-mode banner, the footer, and the events
    table's column headings repeated on each new page."""

    envelope_id, test_mode = "", False
    heading: Callable[[FPDF], None] | None = None

    def header(self) -> None:
        if self.test_mode:
            self.set_fill_color(*RED)
            self.set_text_color(255)
            self.set_font(FAMILY, "B", 10)
            self.set_xy(MARGIN, 14)
            self.cell(self.epw, 20, TEST_MODE, align="C", fill=True)
            self.set_text_color(0)
            self.set_xy(MARGIN, TOP)
        if self.heading:
            self.heading(self)

    def footer(self) -> None:
        self.set_text_color(*GREY)
        self.set_font(FAMILY, "", 8)
        self.set_xy(MARGIN, self.h - BOTTOM + 16)
        self.cell(self.epw / 2, LINE, f"Envelope ID: {self.envelope_id}")
        self.cell(self.epw / 2, LINE, f"Page {self.page_no()} of {PAGES}", align="R")
        self.set_text_color(0)


def _document(log: dict[str, Any], font_paths: tuple[str, str, str | None], generated_at: datetime) -> _Pdf:
    pdf = _Pdf(unit="pt", format="A4")
    pdf.envelope_id, pdf.test_mode = _line(log["envelope_id"]), bool(log.get("test_mode"))
    pdf.alias_nb_pages(PAGES)
    pdf.set_margins(MARGIN, TOP, MARGIN)
    pdf.set_auto_page_break(True, BOTTOM)
    regular, bold, fallback = font_paths
    pdf.add_font(FAMILY, "", regular)
    pdf.add_font(FAMILY, "B", bold)
    if fallback:
        pdf.add_font(FALLBACK, "", fallback)
        pdf.set_fallback_fonts([FALLBACK], exact_match=False)
    pdf.set_title(_line(f"Audit Log - {log.get('title') or log['envelope_id']}"))
    pdf.set_creator("signsvc")
    pdf.set_creation_date(generated_at)
    pdf.add_page()
    return pdf


def _summary(pdf: FPDF, log: dict[str, Any], generated_at: datetime) -> None:
    pdf.set_font(FAMILY, "B", 18)
    pdf.cell(0, 24, "Audit Log", new_x="LMARGIN", new_y="NEXT")
    if title := _line(log.get("title")):
        pdf.set_font(FAMILY, "", 12)
        pdf.multi_cell(0, 16, title, align="L", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    _row(pdf, "Envelope ID", _line(log["envelope_id"]))
    _row(pdf, "Generated at", _shown(generated_at))
    if url := _line(log.get("verify_url")):
        _row(pdf, "Verify at", url, link=url)


def _document_hashes(pdf: FPDF, document: dict[str, Any]) -> None:
    _heading(pdf, f"Document: {_line(document.get('name')) or 'Untitled'}")
    _row(pdf, "Original SHA-256", _line(document.get("original_sha256")) or "-")
    _row(pdf, "Result SHA-256", _line(document.get("result_sha256")) or "-")


def _submitter(pdf: FPDF, submitter: dict[str, Any], number: int, completed_at: datetime | None) -> None:
    who = _line(submitter.get("name")) or _line(submitter.get("email")) or f"Signer {number}"
    role = _line(submitter.get("role"))
    _heading(pdf, f"Signer: {who}" + (f" ({role})" if role else ""))
    details = [("Role", role), ("Name", submitter.get("name")), ("Email", submitter.get("email")),
               ("Phone", submitter.get("phone")), ("Status", submitter.get("status")),
               ("Completed at", completed_at and _shown(completed_at)),
               ("IP address", submitter.get("ip")), ("User agent", submitter.get("user_agent"))]
    for label, value in details:
        if value := _line(value):
            _row(pdf, label, value)
    _images(pdf, submitter.get("images") or [])
    for value in submitter.get("values") or []:
        _row(pdf, _line(value.get("field")) or "Field", _text(value.get("value")) or "-")


def _images(pdf: FPDF, pictures: list[dict[str, Any]]) -> None:
    """The submitter's images side by side, each fitted to IMAGE_BOX with its aspect ratio, its label below."""
    if not pictures:
        return
    width, height = IMAGE_BOX
    pdf.ln(4)
    for picture in pictures:
        if pdf.x + width > pdf.l_margin + pdf.epw:
            pdf.set_xy(pdf.l_margin, pdf.y + height + LINE + 6)
        if pdf.will_page_break(height + LINE):
            pdf.add_page()
        x, y = pdf.x, pdf.y
        if (image := _decoded(picture.get("png"))) is not None:
            scale = min(width / image.width, height / image.height)
            pdf.image(image, x=x, y=y + height - image.height * scale, w=image.width * scale, h=image.height * scale)
        else:
            pdf.set_draw_color(*GREY)
            pdf.rect(x, y, width, height)
            pdf.set_font(FAMILY, "", 8)
            pdf.set_text_color(*GREY)
            pdf.set_xy(x, y + (height - LINE) / 2)
            pdf.cell(width, LINE, UNREADABLE_IMAGE, align="C")
            pdf.set_text_color(0)
        pdf.set_font(FAMILY, "", 8)
        pdf.set_xy(x, y + height + 2)
        pdf.cell(width, LINE, _line(picture.get("label")) or "Image", align="L")
        pdf.set_xy(x + width + IMAGE_GAP, y)
    pdf.set_xy(pdf.l_margin, pdf.y + height + LINE + 6)


def _decoded(data: Any) -> Image.Image | None:
    """The image upright, RGB or RGBA, at most MAX_IMAGE_PIXELS; None when it can't be read."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=images.FORMATS)
            image.thumbnail(MAX_IMAGE_PIXELS)
        alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
        return ImageOps.exif_transpose(image).convert("RGBA" if alpha else "RGB")
    except Exception:  # Pillow raises many types on a broken image; the log is produced without it
        return None


def _events(pdf: _Pdf, events: list[tuple[datetime, str]]) -> None:
    _heading(pdf, "Event Log", room=2 * LINE + 8)
    _event_heading(pdf)
    pdf.heading = _event_heading
    for number, (time, text) in enumerate(events):
        _row(pdf, _shown(time), text or "-", label_width=TIME_WIDTH, bold_label=False, fill=number % 2 == 1)
    pdf.heading = None


def _event_heading(pdf: FPDF) -> None:
    pdf.set_font(FAMILY, "B", SIZE)
    pdf.set_fill_color(*LIGHT)
    pdf.cell(TIME_WIDTH, LINE + 4, "Time", fill=True)
    pdf.cell(0, LINE + 4, "Event", fill=True, new_x="LMARGIN", new_y="NEXT")


def _heading(pdf: FPDF, text: str, room: float = 3 * LINE) -> None:
    pdf.ln(8)
    pdf.set_font(FAMILY, "B", 11)
    if pdf.will_page_break(_height(pdf, pdf.epw, text, HEADING_LINE) + room):
        pdf.add_page()
    pdf.multi_cell(0, HEADING_LINE, text, align="L", new_x="LMARGIN", new_y="NEXT")
    pdf.set_draw_color(*GREY)
    pdf.line(pdf.l_margin, pdf.y, pdf.l_margin + pdf.epw, pdf.y)
    pdf.ln(3)


def _row(pdf: FPDF, label: str, value: str, *, label_width: float = LABEL_WIDTH, bold_label: bool = True,
         fill: bool = False, link: str | None = None) -> None:
    """A label and its value side by side, both wrapped; kept on one page unless taller than one."""
    label_style, value_width = "B" if bold_label else "", pdf.epw - label_width
    pdf.set_font(FAMILY, label_style, SIZE)
    label_height = _height(pdf, label_width, label)
    pdf.set_font(FAMILY, "", SIZE)
    value_height = _height(pdf, value_width, value)
    if pdf.will_page_break(max(label_height, value_height)):
        pdf.add_page()
    top, page = pdf.y, pdf.page
    if fill:
        pdf.set_fill_color(*LIGHT)
        pdf.rect(pdf.l_margin, top, pdf.epw, max(label_height, value_height), style="F")
    pdf.set_font(FAMILY, label_style, SIZE)
    _text_box(pdf, label_width, label, label_height)
    pdf.set_xy(pdf.l_margin + label_width, top)
    pdf.set_font(FAMILY, "", SIZE)
    _text_box(pdf, value_width, value, value_height, link)
    if pdf.page == page:
        pdf.set_y(top + max(label_height, value_height))
    pdf.set_x(pdf.l_margin)


def _text_box(pdf: FPDF, width: float, text: str, height: float, link: str | None = None) -> None:
    """`text` wrapped to `width`; a single line as a cell, which costs a third of a multi_cell."""
    if height == LINE:
        pdf.cell(width, LINE, text, link=link or "")
    else:
        pdf.multi_cell(width, LINE, text, align="L", link=link, new_x="LMARGIN", new_y="NEXT")


def _height(pdf: FPDF, width: float, text: str, line: float = LINE) -> float:
    """The height `text` takes wrapped to `width` in the current font; one line needs no trial run."""
    if "\n" not in text and pdf.get_string_width(text) <= width - 2 * pdf.c_margin:
        return line
    return float(pdf.multi_cell(width, line, text, align="L", dry_run=True, output="HEIGHT"))  # type: ignore[arg-type]


def _utc(value: Any, where: str) -> datetime:
    try:
        time = value if isinstance(value, datetime) else datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise PdfError(f"The audit log's {where} is not an ISO 8601 time: {value!r}") from None
    return time.replace(tzinfo=UTC) if time.tzinfo is None else time.astimezone(UTC)


def _shown(time: datetime) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC")


def _text(value: Any) -> str:
    """The value as text that draws: tabs as spaces, other control and format characters dropped."""
    if value is None:
        return ""
    text = str(value).replace("\r\n", "\n").replace("\t", " ")
    return "".join(char for char in text if char == "\n" or unicodedata.category(char) not in ("Cc", "Cf", "Cs"))


def _line(value: Any) -> str:
    return " ".join(_text(value).split())
