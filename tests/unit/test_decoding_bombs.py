"""Images and PDFs are bounded by what decoding them costs, checked before it: an image's pixels from its
header, a PDF's pages and the depth of its page tree before any page is looked at."""

import functools
import io
import struct
import zlib

import pypdf
import pytest

from signsvc.infra import pdf_calls
from signsvc.pdf import forms, images, previews, reading
from signsvc.pdf.errors import PdfError
from tests.support.samples import RawPdf

BOMB_SIDE = 9400  # 88 megapixels: just under Pillow's own warning, 1.4 GB to decode


def png_header(width: int, height: int, rows: bytes = b"") -> bytes:
    """A grey PNG of that size whose picture data is `rows`, compressed (none: a header and nothing to decode)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", rows)
        + chunk(b"IEND", b"")
    )


@functools.cache
def png_bomb(side: int = BOMB_SIDE) -> bytes:
    """A whole PNG of one colour, `side` pixels square: a few hundred KB that decode to side² bytes."""
    compressor, row = zlib.compressobj(9), bytes(side + 1)  # each row: filter type 0, then black pixels
    rows = b"".join(compressor.compress(row) for _ in range(side)) + compressor.flush()
    return png_header(side, side, rows)


@functools.cache
def blank_pages(count: int, height: int = 842) -> bytes:
    """A PDF of `count` blank pages, A4 unless `height` (points) makes them strips: one page repeated, about 124
    bytes a page."""
    writer = pypdf.PdfWriter()
    for _ in range(count):
        writer.add_blank_page(595, height)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def page_tree(depth: int) -> bytes:
    """A PDF of one page under `depth` levels of /Pages nodes, each the only kid of the one above."""
    pdf = RawPdf()
    catalog, levels = pdf.reserve(), [pdf.reserve() for _ in range(depth)]
    page = pdf.add("<< /Type /Page /MediaBox [0 0 100 100] >>")
    for level, below in zip(levels, [*levels[1:], page], strict=True):
        pdf.put(level, f"<< /Type /Pages /Kids [{below} 0 R] /Count 1 >>")
    pdf.put(catalog, f"<< /Type /Catalog /Pages {levels[0]} 0 R >>")
    return pdf.output(catalog)


def test_the_png_bomb_is_small_and_whole():
    assert len(png_bomb()) < 400_000
    assert len(zlib.decompress(png_bomb()[41:-16])) == BOMB_SIDE * (BOMB_SIDE + 1)


def test_an_image_over_the_pixel_limit_is_refused_from_its_header():
    with pytest.raises(
        PdfError,
        match=r"^The image is 9400x9400 pixels \(88\.4 megapixels\); "
        r"at most 50 megapixels are allowed$",
    ):
        images.image_to_pdf(png_bomb())


def test_an_image_beyond_pillows_own_limit_is_refused_with_its_size_too():
    with pytest.raises(PdfError, match=r"^The image is 30000x30000 pixels \(900\.0 megapixels\)"):
        images.image_to_pdf(png_header(30_000, 30_000))


def test_an_image_at_the_pixel_limit_is_not_refused_for_its_size():
    side = int(images.MAX_PIXELS**0.5)
    with pytest.raises(PdfError, match=r"^The image can't be read$"):  # it has no picture data
        images.image_to_pdf(png_header(side, side))


def test_pillows_own_limit_is_back_after_an_image_is_opened():
    limit = images.Image.MAX_IMAGE_PIXELS
    with pytest.raises(PdfError):
        images.image_to_pdf(png_bomb())
    assert images.Image.MAX_IMAGE_PIXELS == limit is not None


def test_an_image_value_over_the_pixel_limit_is_refused():
    with pytest.raises(pdf_calls.EngineError, match=r"^The image is 9400x9400 pixels"):
        pdf_calls.attachment(png_bomb(), images_only=True)


def test_an_upload_has_at_most_the_pages_that_can_be_rendered():
    with pytest.raises(
        pdf_calls.EngineError, match=f"^The PDF has 1000 pages; at most {previews.MAX_PAGES} are allowed$"
    ):
        pdf_calls.prepare(blank_pages(1000))


def test_rendering_counts_the_pages_before_rendering_any():
    with pytest.raises(PdfError, match=f"^The PDF has 1000 pages; at most {previews.MAX_PAGES} are allowed$"):
        previews.render_pages(blank_pages(1000))
    with pytest.raises(PdfError, match=f"^The PDF has 1000 pages; at most {previews.MAX_PAGES} are allowed$"):
        previews.page_texts(blank_pages(1000))


def test_an_upload_of_as_many_pages_as_can_be_rendered_is_taken():
    # Strips: a preview is WIDTH pixels wide whatever the page's size, so the limit's count of pages renders in
    # a twentieth of the time A4 pages take; the limit is on pages, not pixels.
    pages = blank_pages(previews.MAX_PAGES, height=20)
    assert len(pdf_calls.prepare(pages).previews) == previews.MAX_PAGES


def test_reading_a_stored_pdf_still_allows_more_pages_than_an_upload():
    assert len(forms.inspect_pdf(blank_pages(1000))["pages"]) == 1000


def test_a_page_tree_too_deep_is_refused_for_its_depth():
    with pytest.raises(PdfError, match=r"^The PDF's page tree is nested too deeply to be read: more than 64 levels$"):
        forms.inspect_pdf(page_tree(100))


def test_a_page_tree_as_deep_as_allowed_is_read():
    assert len(forms.inspect_pdf(page_tree(reading.MAX_TREE_DEPTH))["pages"]) == 1
