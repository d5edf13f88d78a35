"""Fonts parsed once per process and lent to each document: every document is the one fpdf2 writes with the
font files parsed for it alone, whatever documents came before."""

from datetime import UTC, datetime

import pytest
from fpdf import FPDF

from signsvc.pdf import font_cache, fonts, record_pages

TEXTS = ["Anna Müller 山田 太郎", "Zoë Łukasz 鈴木 花子 Иван Петров", "山田 太郎", "Ωmega אבג محمد \u25a1",
         "Anna Müller 山田 太郎", "鈴木 花子 𠮷"]


@pytest.fixture(scope="module")
def paths():
    every = record_pages.every_font(None)
    if len(every) < 3:
        pytest.skip("needs DejaVu Sans, its bold and a CJK fallback font")
    return every


def document(text, paths, add_font):
    regular, bold, fallback = paths
    pdf = FPDF(unit="pt")
    pdf.set_creation_date(datetime(2026, 1, 1, tzinfo=UTC))
    add_font(pdf, "text", regular, "")
    add_font(pdf, "text", bold, "B")
    add_font(pdf, "fallback", fallback, "")
    pdf.set_fallback_fonts(["fallback"], exact_match=False)
    pdf.add_page()
    pdf.set_font("text", size=12)
    pdf.cell(400, 20, text, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("text", "B", 12)
    pdf.cell(400, 20, text[::-1])
    return pdf


def fpdf2_parsing(pdf, family, path, style):
    pdf.add_font(family, style, path)


def lent(pdf, family, path, style):
    font_cache.add_font(pdf, family, path, style)


def test_each_document_is_the_one_fpdf2_writes_with_the_fonts_parsed_for_it_alone(paths):
    expected = [bytes(document(text, paths, fpdf2_parsing).output()) for text in TEXTS]
    for order in (TEXTS, TEXTS[::-1]):
        assert [bytes(document(text, paths, lent).output()) for text in order] == \
            [expected[TEXTS.index(text)] for text in order]


def test_a_document_left_unwritten_changes_nothing_for_the_next(paths):
    expected = bytes(document("山田 太郎 Łukasz", paths, fpdf2_parsing).output())
    document("鈴木 花子 Zoë", paths, lent)  # drawn into, never written: its subset is never taken
    assert bytes(document("山田 太郎 Łukasz", paths, lent).output()) == expected


def test_documents_share_the_parsed_font_but_not_what_drawing_and_subsetting_change(paths):
    first, second = document("山田", paths, lent), document("鈴木", paths, lent)
    one, other = first.fonts["fallback"], second.fonts["fallback"]
    assert one.cmap is other.cmap and one.glyph_ids is other.glyph_ids
    assert one.ttfont is not other.ttfont and one.subset is not other.subset and one.cw is not other.cw
    assert one.ttfont["glyf"] is not other.ttfont["glyf"] and one.ttfont["cmap"].tables[0] is not \
        other.ttfont["cmap"].tables[0]


def test_every_font_names_the_text_font_its_bold_and_the_fallback(paths):
    assert paths[0] == fonts.check(None) and "Bold" in paths[1] and paths[2] == fonts.fallback_font(None)


def test_one_file_lent_twice_to_a_document_is_two_fonts_of_it(paths):
    def twice(add_font):
        pdf = FPDF(unit="pt")
        pdf.set_creation_date(datetime(2026, 1, 1, tzinfo=UTC))
        add_font(pdf, "text", paths[0], "")
        add_font(pdf, "text", paths[0], "B")  # no bold installed: the regular stands in for it
        pdf.add_page()
        for style in ("", "B"):
            pdf.set_font("text", style, 12)
            pdf.cell(200, 20, "Łukasz", new_x="LMARGIN", new_y="NEXT")
        return bytes(pdf.output())

    assert twice(lent) == twice(fpdf2_parsing)
