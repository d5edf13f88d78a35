"""Real documents made in the tests: PDFs of a few pages, images."""

from __future__ import annotations

import base64
import io

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


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()
