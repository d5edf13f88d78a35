"""Page previews for the hosted pages: each page rendered by PDFium as a JPEG of a fixed pixel width.

Measured on a dense A4 text page at 1400 px: JPEG q85 is 537 KB in 19 ms, PNG (level 1) 479 KB in
145 ms; on a scanned page JPEG stays at 453 KB where PNG grows to 2.5 MB. Optimised or progressive
JPEG saves 5-15% for 3-6 times the time. The width is fixed rather than a scale, so a huge page
can't make a huge bitmap. PDFium isn't thread-safe: call this only in a worker process.
"""

from __future__ import annotations

import io
from collections.abc import Iterable

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from signsvc.pdf import kinds, reading
from signsvc.pdf.errors import PdfError

WIDTH = 1400  # as DocuSeal: sharp on a high-density screen at the signing page's column width
TALLEST = 4  # times the width: a strip-shaped page is scaled down further rather than made enormous
QUALITY = 85
CONTENT_TYPE, EXTENSION = "image/jpeg", "jpg"
TEXT_LIMIT = 20_000  # characters of a page's text kept as the image's text alternative
# Rendering is what an upload costs, by the page: about 70 ms and 0.8 MB of JPEG for a dense page of
# text, so 300 pages take a worker some 20 s and 240 MB. Longer documents are rare enough to be split;
# reading (filling, merging) still allows reading.MAX_PAGES.
MAX_PAGES = 300


def render_pages(
    data: bytes, *, width: int = WIDTH, pages: Iterable[int] | None = None, max_pages: int = MAX_PAGES
) -> list[bytes]:
    """JPEG bytes of the given pages (0-based; all by default), `width` pixels wide, the form's widgets
    drawn as a viewer draws them (values filled before upload show). Raises PdfError."""
    document = _open(data, max_pages)
    try:
        document.init_forms()
        return [_render(document[index], width) for index in (range(len(document)) if pages is None else pages)]
    except pdfium.PdfiumError as error:
        raise PdfError(reading.DAMAGED) from error
    finally:
        document.close()


def page_texts(
    data: bytes, *, pages: Iterable[int] | None = None, limit: int = TEXT_LIMIT, max_pages: int = MAX_PAGES
) -> list[str]:
    """The text of the given pages (0-based; all by default), in reading order as PDFium finds it, at most `limit`
    characters a page: the text alternative of the page images for screen readers. Raises PdfError."""
    document = _open(data, max_pages)
    try:
        return [_text(document[index], limit) for index in (range(len(document)) if pages is None else pages)]
    except pdfium.PdfiumError as error:
        raise PdfError(reading.DAMAGED) from error
    finally:
        document.close()


def _text(page: pdfium.PdfPage, limit: int) -> str:
    text = page.get_textpage()
    try:
        return " ".join(text.get_text_range().split())[:limit]
    finally:
        text.close()
        page.close()


def _open(data: bytes, max_pages: int) -> pdfium.PdfDocument:
    if kinds.sniff(data) != "pdf":
        raise PdfError(reading.NOT_PDF)
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as error:
        locked = error.err_code == pdfium_c.FPDF_ERR_PASSWORD
        raise PdfError(reading.ENCRYPTED if locked else reading.DAMAGED) from error
    count = len(document)
    if not 0 < count <= max_pages:
        document.close()
        raise PdfError(reading.too_many_pages(count, max_pages) if count else reading.NO_PAGES)
    return document


def _render(page: pdfium.PdfPage, width: int) -> bytes:
    try:
        page_width, page_height = page.get_size()  # as displayed: cropped and turned
        # pypdfium2 rounds the bitmap size up: stay a hair under, so a page comes out `width` wide exactly.
        scale = min(width / page_width, TALLEST * width / page_height) * (1 - 1e-9)
        buffer = io.BytesIO()
        # In RGB order, as Pillow takes it: the same image without a swap of every pixel's channels.
        page.render(scale=scale, rev_byteorder=True).to_pil().save(buffer, format="JPEG", quality=QUALITY)
        return buffer.getvalue()
    finally:
        page.close()
