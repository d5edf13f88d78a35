"""Text tags in PDFs (signsvc.pdf.text_tags): found with their boxes, and removed from the page content so that no
text extraction finds them while every glyph around them stays where it was; what cannot be rewritten is left."""

from __future__ import annotations

import io

import pypdf
import pypdfium2 as pdfium
import pytest
from fpdf import FPDF
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    FloatObject,
    NameObject,
    NumberObject,
    TextStringObject,
)

from signsvc.pdf import text_tags
from signsvc.pdf.errors import PdfError
from tests.support.pdf_text import page_texts, pdftotext
from tests.support.system import PDFTOTEXT

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def texts(pdf: bytes) -> list[str]:
    document = pdfium.PdfDocument(pdf)
    return [pdftotext(pdf), " ".join(page_texts(pdf)), document[0].get_textpage().get_text_range()]


def left_of(pdf: bytes, word: str) -> float:
    page = pdfium.PdfDocument(pdf)[0].get_textpage()
    text = page.get_text_range()
    return page.get_charbox(text.index(word))[0]


def written(content: bytes, *, crop: list[float] | None = None, annotations: list | None = None, font=None) -> bytes:
    """A Letter page showing `content` with /F1 Helvetica (WinAnsi), or the font given."""
    writer = pypdf.PdfWriter()
    page = writer.add_blank_page(612, 792)
    helvetica = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
            NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
        }
    )
    fonts = DictionaryObject({NameObject("/F1"): writer._add_object(font or helvetica)})
    page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): fonts})
    stream = DecodedStreamObject()
    stream.set_data(content)
    page[NameObject("/Contents")] = writer._add_object(stream)
    if crop:
        page[NameObject("/CropBox")] = ArrayObject([FloatObject(n) for n in crop])
    if annotations:
        page[NameObject("/Annots")] = ArrayObject([writer._add_object(a) for a in annotations])
    output = io.BytesIO()
    writer.write(output)
    return output.getvalue()


def fpdf_page(font: str, *lines: tuple[float, float, str], char_spacing: float = 0) -> bytes:
    document = FPDF(unit="pt", format="letter")
    document.add_page()
    if font == "dejavu":
        document.add_font("dejavu", fname=DEJAVU)
    document.set_font(font, size=12)
    document.set_char_spacing(char_spacing)
    for x, y, text in lines:
        document.text(x, y, text)
    return bytes(document.output())


@PDFTOTEXT
@pytest.mark.parametrize("font", ["helvetica", "dejavu"])
def test_a_tag_is_found_at_its_box_and_removed_with_the_words_around_it_in_place(font):
    pdf = fpdf_page(font, (72, 100, "Before {{Name;role=A}} after"), (72, 200, "{{Sig;type=signature}}"))
    first, second = text_tags.find_tags(pdf)
    assert (first.text, first.body, first.box.page) == ("{{Name;role=A}}", "Name;role=A", 0)
    assert (first.box.page_width, first.box.page_height) == (612, 792)
    assert first.box.y * 792 < 100 < (first.box.y + first.box.h) * 792 and first.box.x * 612 > 72
    assert second.box.x * 612 == pytest.approx(72, abs=1)
    stripped = text_tags.remove_tags(pdf)
    for text in texts(stripped):
        assert "{{" not in text and "Name;" not in text and "Before" in text and "after" in text
    assert left_of(stripped, "after") == pytest.approx(left_of(pdf, "after"), abs=0.01)
    assert text_tags.find_tags(stripped) == []


@PDFTOTEXT
def test_character_spacing_is_counted_in_the_offset_that_replaces_a_tag():
    pdf = fpdf_page("helvetica", (72, 100, "Spaced {{X}} words"), char_spacing=1.5)
    stripped = text_tags.remove_tags(pdf)
    assert "{{" not in pdftotext(stripped)
    assert left_of(stripped, "words") == pytest.approx(left_of(pdf, "words"), abs=0.01)


@PDFTOTEXT
def test_a_tag_split_over_strings_and_text_objects_is_found_and_removed():
    content = (
        b"BT /F1 12 Tf 72 700 Td [(One {{Na) -20 (me;ro)] TJ (le=A}} two) Tj ET BT /F1 12 Tf 300 700 Td (three) Tj ET"
    )
    pdf = written(content)
    [tag] = text_tags.find_tags(pdf)
    assert tag.text == "{{Name;role=A}}"
    stripped = text_tags.remove_tags(pdf)
    for text in texts(stripped):
        assert "{{" not in text and "role" not in text and "One" in text and "two" in text
    assert left_of(stripped, "two") == pytest.approx(left_of(pdf, "two"), abs=0.01)


def test_braces_apart_on_the_page_are_no_tag_though_they_follow_each_other_in_the_content():
    pdf = written(b"BT /F1 12 Tf 72 700 Td ({{Not) Tj ET BT /F1 12 Tf 72 400 Td (a tag}}) Tj ET")
    assert text_tags.find_tags(pdf) == []
    assert text_tags.remove_tags(pdf) == pdf


@PDFTOTEXT
def test_the_quote_operators_keep_their_line_move_and_spacing():
    content = b"BT /F1 12 Tf 14 TL 72 700 Td (first) Tj ({{A}} second) ' 2 1 (x {{B}} third) \" (fourth) Tj ET"
    pdf = written(content)
    stripped = text_tags.remove_tags(pdf)
    for word in ("second", "third", "fourth"):
        assert left_of(stripped, word) == pytest.approx(left_of(pdf, word), abs=0.01)
    assert "{{" not in pdftotext(stripped)


def test_a_page_without_tags_keeps_its_bytes():
    pdf = fpdf_page("helvetica", (72, 100, "Nothing to see {here}"))
    assert text_tags.find_tags(pdf) == []
    assert text_tags.remove_tags(pdf) == pdf


def test_the_box_is_on_the_displayed_page_of_a_cropped_page():
    pdf = written(b"BT /F1 12 Tf 172 692 Td ({{Name}}) Tj ET", crop=[100, 0, 612, 792])
    [tag] = text_tags.find_tags(pdf)
    assert tag.box.x * tag.box.page_width == pytest.approx(72, abs=0.5) and tag.box.page_width == 512


def test_an_annotation_whose_text_is_a_tag_is_a_tag_and_is_removed_with_the_others():
    note = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Annot"),
            NameObject("/Subtype"): NameObject("/Square"),
            NameObject("/Rect"): ArrayObject([NumberObject(n) for n in (72, 592, 272, 692)]),
            NameObject("/Contents"): TextStringObject("{{Sign;type=signature}}"),
        }
    )
    pdf = written(b"BT /F1 12 Tf 72 700 Td (Text) Tj ET", annotations=[note])
    [tag] = text_tags.find_tags(pdf)
    assert tag.body == "Sign;type=signature"
    assert (tag.box.x, tag.box.y, tag.box.w) == pytest.approx((72 / 612, 100 / 792, 200 / 612), abs=1e-4)
    assert not pypdf.PdfReader(io.BytesIO(text_tags.remove_tags(pdf))).pages[0].get("/Annots")


def test_a_tag_in_a_type3_font_is_left_in_place():
    glyph = DecodedStreamObject()
    glyph.set_data(b"500 0 0 0 500 700 d1 0 0 500 700 re f")
    type3 = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type3"),
            NameObject("/FontBBox"): ArrayObject([NumberObject(n) for n in (0, 0, 500, 700)]),
            NameObject("/FontMatrix"): ArrayObject([FloatObject(n) for n in (0.001, 0, 0, 0.001, 0, 0)]),
            NameObject("/CharProcs"): DictionaryObject({NameObject("/box"): glyph}),
            NameObject("/Encoding"): DictionaryObject(
                {NameObject("/Differences"): ArrayObject([NumberObject(32), *[NameObject("/box")] * 95])}
            ),
            NameObject("/FirstChar"): NumberObject(32),
            NameObject("/LastChar"): NumberObject(126),
            NameObject("/Widths"): ArrayObject([NumberObject(500)] * 95),
        }
    )
    pdf = written(b"BT /F1 12 Tf 72 700 Td ({{T3}}) Tj ET", font=type3)
    assert text_tags.remove_tags(pdf) == pdf


def test_a_tag_inside_a_form_xobject_is_found_but_left_in_place():
    reused = _as_form_xobject(fpdf_page("helvetica", (72, 100, "Page {{Kept}}")))
    [tag] = text_tags.find_tags(reused)
    assert tag.text == "{{Kept}}"
    assert text_tags.remove_tags(reused) == reused


def _as_form_xobject(pdf: bytes) -> bytes:
    """The PDF's first page drawn through a form XObject holding its content."""
    source = pypdf.PdfReader(io.BytesIO(pdf)).pages[0]
    writer = pypdf.PdfWriter()
    page = writer.add_blank_page(612, 792)
    form = DecodedStreamObject()
    form.set_data(source.get_contents().get_data())
    form.update(
        {
            NameObject("/Type"): NameObject("/XObject"),
            NameObject("/Subtype"): NameObject("/Form"),
            NameObject("/BBox"): ArrayObject([NumberObject(n) for n in (0, 0, 612, 792)]),
            NameObject("/Resources"): source["/Resources"].clone(writer),
        }
    )
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/XObject"): DictionaryObject({NameObject("/Fm1"): writer._add_object(form)})}
    )
    content = DecodedStreamObject()
    content.set_data(b"q /Fm1 Do Q")
    page[NameObject("/Contents")] = writer._add_object(content)
    output = io.BytesIO()
    writer.write(output)
    return output.getvalue()


def test_a_damaged_pdf_is_a_pdf_error():
    with pytest.raises(PdfError):
        text_tags.find_tags(b"%PDF-1.7 nothing else")
