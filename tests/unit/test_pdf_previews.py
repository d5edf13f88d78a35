"""Page previews: one JPEG per page, as the page is displayed."""

import io

import pytest
from PIL import Image

from signsvc.pdf import previews
from signsvc.pdf.errors import PdfError
from tests.support import odd_pdfs
from tests.support.samples import A4, encrypted, pages_pdf, text_pdf, turned


def sizes(jpegs):
    return [Image.open(io.BytesIO(jpeg)).size for jpeg in jpegs]


def test_one_jpeg_per_page_at_the_preview_width_keeping_the_displayed_aspect():
    jpegs = previews.render_pages(turned(text_pdf("one", "two", "three"), page=1, degrees=90))
    assert [jpeg[:3] for jpeg in jpegs] == [b"\xff\xd8\xff"] * 3
    portrait, landscape = (1400, round(1400 * A4[1] / A4[0])), (1400, round(1400 * A4[0] / A4[1]))
    assert sizes(jpegs) == [portrait, landscape, portrait]


def test_a_cropped_page_shows_only_its_cropbox():
    jpegs = previews.render_pages(
        pages_pdf("/MediaBox [0 0 600 800] /CropBox [100 100 400 700] /Rotate 270"), width=600
    )
    assert sizes(jpegs) == [(600, 300)]


def test_only_the_pages_asked_for():
    assert len(previews.render_pages(text_pdf("a", "b", "c"), pages=[2])) == 1


def test_a_strip_shaped_page_is_not_rendered_enormous():
    assert sizes(previews.render_pages(pages_pdf("/MediaBox [0 0 10 10000]"), width=100)) == [(1, 400)]


@pytest.mark.parametrize(
    "data, message",
    [
        (b"no pdf", "The file is not a PDF"),
        (encrypted(text_pdf("x"), user="secret"), "The PDF is protected by a password; upload it without the password"),
        (text_pdf("x")[:400], "The PDF is damaged and can't be read"),
        (text_pdf(*"abcd"), "The PDF has 4 pages; at most 3 are allowed"),
    ],
    ids=["not a pdf", "password", "truncated", "too many pages"],
)
def test_unusable_pdfs_raise_the_same_errors_as_reading(data, message):
    with pytest.raises(PdfError) as caught:
        previews.render_pages(data, max_pages=3)
    assert str(caught.value) == message


def test_a_value_filled_before_upload_without_an_appearance_shows_on_the_preview():
    """The field "company" (ACME Ltd at 72,720-272,740 on an A4 page) has a value but no appearance: the
    preview draws it as a viewer does, so the template's page picture shows what the signed document will."""
    image = Image.open(io.BytesIO(previews.render_pages(odd_pdfs.prefilled_without_appearances())[0])).convert("L")
    scale = image.width / 595
    box = (int(72 * scale), int((842 - 740) * scale), int(272 * scale), int((842 - 720) * scale))
    assert image.crop(box).getextrema()[0] < 100, "the value's text is drawn in the field"
