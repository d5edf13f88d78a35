"""The certificate of a consent: who agreed to which version of a clickwrap, when, from where, and how
they answered its checkboxes. The caller seals it; this module only draws it.

`render(data)` takes plain data and answers PDF bytes. `data` has this shape (keys not marked
required may be missing or None):

    {"words": {str: str},               # required: the fixed texts, `record.*` and `consent_certificate.*` keys
                                        # of the catalogue in the certificate's language (`record_pages.Words`)
     "language": str,                   # writes the times; English when missing
     "consent_id": str,                 # required; shown in the summary and in every page's footer
     "title": str,                      # the clickwrap's name
     "version": int,                    # required: the clickwrap version agreed to
     "test_mode": bool,                 # marks every page "Test document, not legally binding"
     "generated_at": str,               # required, ISO 8601; also the PDF's creation date
     "agreed_at": str,                  # required, ISO 8601
     "button_text": str,                # what the person clicked, e.g. "I agree"
     "content": str,                    # the agreement's plain text (no_document clickwraps)
     "documents": [{"name": str, "sha256": str, "pages": int}],  # the template's documents agreed to
     "person": {"name": str, "email": str, "external_id": str, "ip": str, "user_agent": str},
     "checkboxes": [{"text": str, "required": bool, "checked": bool}],
     "submission": {"envelope_id": str},  # when signing followed the consent
     "events": [{"time": str (ISO 8601), "text": str}]}

The content is drawn in full as plain text, its line breaks kept, on as many pages as it takes.
Details of the person that are missing or empty are left out. Events are shown in time order (events
of the same time keep their given order). Times, text, fonts and the pages are as
`signsvc.pdf.record_pages` says: the same data always gives the same bytes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fpdf import FPDF

import signsvc.pdf.record_pages as pages
from signsvc.pdf.errors import PdfError

RECORD = "consent certificate"
PERSON = [
    ("record.name", "name"),
    ("record.email", "email"),
    ("consent_certificate.external_id", "external_id"),
    ("record.ip", "ip"),
    ("record.user_agent", "user_agent"),
]


def render(data: dict[str, Any], font_dir: str | None = None) -> bytes:
    """The consent certificate PDF of `data` (shape in the module docstring). Raises PdfError without a
    consent id, version or its words or for a time that isn't ISO 8601, and its `fonts.MissingFont` without a
    font the text needs."""
    if not isinstance(data, dict) or not pages.line(data.get("consent_id")):
        raise PdfError("A consent certificate needs a consent_id")
    words = pages.Words(data, RECORD)
    if not isinstance(version := data.get("version"), int) or isinstance(version, bool):
        raise PdfError(f"The consent certificate's version is not a whole number: {version!r}")
    # Every time is read before the document opens its font files, which only `output()` closes.
    generated_at = pages.utc(data.get("generated_at"), "generated_at", RECORD)
    agreed_at = pages.utc(data.get("agreed_at"), "agreed_at", RECORD)
    events = pages.read_events(data.get("events"), RECORD)
    consent_id = pages.line(data["consent_id"])
    font_paths = pages.fonts_for(data, font_dir)
    events = pages.with_replacement_note(events, data, font_paths, generated_at, words)
    pdf = pages.open_document(
        f"{words('consent_certificate.title')} - {data.get('title') or consent_id}",
        words("consent_certificate.consent_id"),
        consent_id,
        words,
        test_mode=bool(data.get("test_mode")),
        font_paths=font_paths,
        generated_at=generated_at,
        shaped=pages.needs_shaping(data),
    )
    _summary(pdf, data, agreed_at, generated_at, words)
    _person(pdf, data.get("person") or {}, words)
    _agreement(pdf, pages.text(data.get("content")).strip("\n"), data.get("documents") or [], words)
    _checkboxes(pdf, data.get("checkboxes") or [], words)
    if submission := data.get("submission"):
        _signing(pdf, submission, words)
    pages.events_table(pdf, events)
    return bytes(pdf.output())


def _summary(pdf: FPDF, data: dict[str, Any], agreed_at: datetime, generated_at: datetime, words: pages.Words) -> None:
    pages.title_block(pdf, words("consent_certificate.title"), pages.line(data.get("title")))
    pages.row(pdf, words("consent_certificate.consent_id"), pages.line(data["consent_id"]))
    pages.row(pdf, words("consent_certificate.version"), str(data["version"]))
    pages.row(pdf, words("consent_certificate.agreed_at"), words.shown(agreed_at))
    pages.rows(pdf, [(words("consent_certificate.button"), data.get("button_text"))])
    pages.row(pdf, words("record.generated_at"), words.shown(generated_at))


def _person(pdf: FPDF, person: dict[str, Any], words: pages.Words) -> None:
    details = [(words(label), person.get(key)) for label, key in PERSON]
    if any(pages.line(value) for _, value in details):
        pages.section(pdf, words("consent_certificate.agreed_by"))
        pages.rows(pdf, details)


def _agreement(pdf: FPDF, content: str, documents: list[dict[str, Any]], words: pages.Words) -> None:
    """The agreement's text, or the documents agreed to with their hashes."""
    if not content and not documents:
        return
    pages.section(pdf, words("consent_certificate.agreement"))
    if content:
        pdf.set_font(pages.FAMILY, "", pages.SIZE)
        pdf.multi_cell(0, pages.LINE, content, align="L", new_x="LMARGIN", new_y="NEXT")
    for number, document in enumerate(documents):
        if number or content:
            pdf.ln(6)
        pages.row(
            pdf, words("consent_certificate.document"), pages.line(document.get("name")) or words("record.untitled")
        )
        pages.row(pdf, words("consent_certificate.pages"), pages.line(document.get("pages")) or "-")
        pages.row(pdf, "SHA-256", pages.line(document.get("sha256")) or "-")


def _checkboxes(pdf: FPDF, boxes: list[dict[str, Any]], words: pages.Words) -> None:
    if not boxes:
        return
    pages.section(pdf, words("consent_certificate.checkboxes"))
    for box in boxes:
        answer = words("consent_certificate.checked" if box.get("checked") else "consent_certificate.not_checked")
        text = pages.line(box.get("text")) or "-"
        pages.row(pdf, answer, words("consent_certificate.required", text=text) if box.get("required") else text)


def _signing(pdf: FPDF, submission: dict[str, Any], words: pages.Words) -> None:
    pages.section(pdf, words("consent_certificate.signing"))
    pages.rows(pdf, [(words("record.envelope_id"), submission.get("envelope_id"))])
