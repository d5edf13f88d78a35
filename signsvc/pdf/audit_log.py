"""The audit log PDF of a submission: who signed what, when and from where.

`render(log)` takes plain data and answers PDF bytes. `log` has this shape (keys not marked
required may be missing or None):

    {"words": {str: str},               # required: the fixed texts, `record.*` and `audit_log.*` keys of the
                                        # catalogue in the log's language (`record_pages.Words`)
     "language": str,                   # writes the times; English when missing
     "title": str,                      # the submission's (or template's) name
     "envelope_id": str,                # required
     "test_mode": bool,                 # marks every page "Test document, not legally binding"
     "generated_at": str,               # required, ISO 8601; also the PDF's creation date
     "verify_url": str,                 # where the file can be verified
     "documents": [{"name": str, "original_sha256": str, "result_sha256": str}],
     "submitters": [{"role": str, "name": str, "email": str, "phone": str, "ip": str,
                  "user_agent": str, "completed_at": str (ISO 8601), "status": str (shown as given),
                  "images": [{"label": str, "png": bytes}],  # PNG, JPEG, WebP, GIF or TIFF bytes
                  "values": [{"field": str, "value": str}]}],
     "events": [{"time": str (ISO 8601), "text": str}]}

Events are shown in time order (events of the same time keep their given order). Submitter details
that are missing or empty are left out. An image that can't be read is replaced by a note, since
the audit log must still be produced. Times, text, fonts and the pages are as `signsvc.pdf.record_pages`
says: the same log always gives the same bytes.
"""

from __future__ import annotations

import io
import warnings
from datetime import datetime
from typing import Any

from fpdf import FPDF
from PIL import Image, ImageOps

import signsvc.pdf.record_pages as pages
from signsvc.pdf import images
from signsvc.pdf.errors import PdfError

RECORD = "audit log"
IMAGE_BOX, IMAGE_GAP = (160, 56), 14
MAX_IMAGE_PIXELS = (1200, 420)  # about 540 dpi in the box: enough for any screen or printer


def render(log: dict[str, Any], font_dir: str | None = None) -> bytes:
    """The audit log PDF of `log` (shape in the module docstring). Raises PdfError without an envelope
    id or its words or for a time that isn't ISO 8601, and its `fonts.MissingFont` without DejaVu Sans;
    characters no font has are drawn as a substitute, named in a last event."""
    if not isinstance(log, dict) or not log.get("envelope_id"):
        raise PdfError("An audit log needs an envelope id")
    words = pages.Words(log, RECORD)
    generated_at = pages.utc(log.get("generated_at"), "generated_at", RECORD)
    events = pages.read_events(log.get("events"), RECORD)
    submitters = log.get("submitters") or []
    # Every time is read before the document opens its font files, which only `output()` closes.
    completed = [
        pages.utc(submitter["completed_at"], f"submitters[{number}].completed_at", RECORD)
        if submitter.get("completed_at")
        else None
        for number, submitter in enumerate(submitters)
    ]
    font_paths = pages.fonts_for(log, font_dir)
    events = pages.with_replacement_note(events, log, font_paths, generated_at, words)
    pdf = pages.open_document(
        f"{words('audit_log.title')} - {log.get('title') or log['envelope_id']}",
        words("record.envelope_id"),
        pages.line(log["envelope_id"]),
        words,
        test_mode=bool(log.get("test_mode")),
        font_paths=font_paths,
        generated_at=generated_at,
        shaped=pages.needs_shaping(log),
    )
    _summary(pdf, log, generated_at, words)
    for document in log.get("documents") or []:
        _document_hashes(pdf, document, words)
    for number, (submitter, completed_at) in enumerate(zip(submitters, completed, strict=True), 1):
        _submitter(pdf, submitter, number, completed_at, words)
    pages.events_table(pdf, events)
    return bytes(pdf.output())


def _summary(pdf: FPDF, log: dict[str, Any], generated_at: datetime, words: pages.Words) -> None:
    pages.title_block(pdf, words("audit_log.title"), pages.line(log.get("title")))
    pages.row(pdf, words("record.envelope_id"), pages.line(log["envelope_id"]))
    pages.row(pdf, words("record.generated_at"), words.shown(generated_at))
    if url := pages.line(log.get("verify_url")):
        pages.row(pdf, words("audit_log.verify_at"), url, link=url)


def _document_hashes(pdf: FPDF, document: dict[str, Any], words: pages.Words) -> None:
    pages.section(pdf, words("audit_log.document", name=pages.line(document.get("name")) or words("record.untitled")))
    pages.row(pdf, words("audit_log.original_sha256"), pages.line(document.get("original_sha256")) or "-")
    pages.row(pdf, words("audit_log.result_sha256"), pages.line(document.get("result_sha256")) or "-")


def _submitter(
    pdf: FPDF, submitter: dict[str, Any], number: int, completed_at: datetime | None, words: pages.Words
) -> None:
    who = (
        pages.line(submitter.get("name"))
        or pages.line(submitter.get("email"))
        or words("audit_log.signer_number", number=number)
    )
    role = pages.line(submitter.get("role"))
    pages.section(
        pdf, words("audit_log.signer_role", name=who, role=role) if role else words("audit_log.signer", name=who)
    )
    details = [
        (words("audit_log.role"), role),
        (words("record.name"), submitter.get("name")),
        (words("record.email"), submitter.get("email")),
        (words("audit_log.phone"), submitter.get("phone")),
        (words("audit_log.status"), submitter.get("status")),
        (words("audit_log.completed_at"), completed_at and words.shown(completed_at)),
        (words("record.ip"), submitter.get("ip")),
        (words("record.user_agent"), submitter.get("user_agent")),
    ]
    pages.rows(pdf, details)
    _images(pdf, submitter.get("images") or [], words)
    for value in submitter.get("values") or []:
        pages.row(
            pdf, pages.line(value.get("field")) or words("audit_log.field"), pages.text(value.get("value")) or "-"
        )


def _images(pdf: FPDF, pictures: list[dict[str, Any]], words: pages.Words) -> None:
    """The submitter's images side by side, each fitted to IMAGE_BOX with its aspect ratio, its label below."""
    if not pictures:
        return
    width, height = IMAGE_BOX
    pdf.ln(4)
    for picture in pictures:
        if pdf.x + width > pdf.l_margin + pdf.epw:
            pdf.set_xy(pdf.l_margin, pdf.y + height + pages.LINE + 6)
        if pdf.will_page_break(height + pages.LINE):
            pdf.add_page()
        x, y = pdf.x, pdf.y
        if (image := _decoded(picture.get("png"))) is not None:
            scale = min(width / image.width, height / image.height)
            pdf.image(image, x=x, y=y + height - image.height * scale, w=image.width * scale, h=image.height * scale)
        else:
            pdf.set_draw_color(*pages.GREY)
            pdf.rect(x, y, width, height)
            pdf.set_font(pages.FAMILY, "", 8)
            pdf.set_text_color(*pages.GREY)
            pdf.set_xy(x, y + (height - pages.LINE) / 2)
            pdf.cell(width, pages.LINE, words("audit_log.unreadable_image"), align="C")
            pdf.set_text_color(0)
        pdf.set_font(pages.FAMILY, "", 8)
        pdf.set_xy(x, y + height + 2)
        pdf.cell(width, pages.LINE, pages.line(picture.get("label")) or words("audit_log.image"), align="L")
        pdf.set_xy(x + width + IMAGE_GAP, y)
    pdf.set_xy(pdf.l_margin, pdf.y + height + pages.LINE + 6)


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
