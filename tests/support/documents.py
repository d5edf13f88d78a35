"""Real documents made in the tests: PDFs of a few pages, images, Word documents."""

from __future__ import annotations

import base64
import io

import docx
from docx.shared import Mm
from fpdf import FPDF
from PIL import Image


def pdf(pages: int = 1, *, text: str = "Agreement") -> bytes:
    document = FPDF(unit="pt", format="A4")
    document.set_font("helvetica", size=14)
    for number in range(1, pages + 1):
        document.add_page()
        document.cell(text=f"{text}, page {number}")
    return bytes(document.output())


def png(width: int = 300, height: int = 200) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(buffer, "PNG")
    return buffer.getvalue()


def word(*paragraphs: str) -> bytes:
    """A DOCX of A4 pages (as `pdf` makes them) holding the paragraphs."""
    document = docx.Document()
    document.sections[0].page_width, document.sections[0].page_height = Mm(210), Mm(297)
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()
