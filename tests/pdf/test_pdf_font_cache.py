"""Fonts parsed once per process and lent to each document: every document is the one fpdf2 writes with the
font files parsed for it alone (less a variable font's variation tables), whatever documents came before. The
fonts are the packaged ones (Noto Sans, a variable TrueType font; Noto Sans CJK, a CFF collection; Noto Sans
Arabic, shaped), so this holds on any machine."""

from datetime import UTC, datetime

import pytest
from fpdf import FPDF

from signsvc.pdf import font_cache, font_files, fonts, record_pages

TEXTS = [
    "Anna Müller 山田 太郎",
    "Zoë Łukasz 鈴木 花子 Иван Петров",
    "Ωmega אבג محمد \u25a1",
    "Anna Müller 山田 太郎",
    "鈴木 花子 𠮷",
]


@pytest.fixture(scope="module")
def paths():
    """The packaged text font (standing in for its bold too), the CJK collection and the Arabic font."""
    regular = font_files.packaged(*font_files.PACKAGED_TEXT)
    cjk, arabic = font_files.packaged_cjk_font(), font_files.packaged(*font_files.PACKAGED_FALLBACKS[0])
    assert regular and cjk and arabic, "the font packages are dependencies: pip install -e ."
    return regular, regular, cjk, arabic


def document(text, paths, add_font, shaped=False):
    regular, bold, cjk, arabic = paths
    pdf = FPDF(unit="pt")
    pdf.set_creation_date(datetime(2026, 1, 1, tzinfo=UTC))
    add_font(pdf, "text", regular, "")
    add_font(pdf, "text", bold, "B")
    add_font(pdf, "cjk", cjk, "")
    add_font(pdf, "arabic", arabic, "")
    pdf.set_fallback_fonts(["cjk", "arabic"], exact_match=False)
    if shaped:
        pdf.set_text_shaping(True)
    pdf.add_page()
    pdf.set_font("text", size=12)
    pdf.cell(400, 20, text, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("text", "B", 12)
    pdf.cell(400, 20, text[::-1])
    return pdf


def fpdf2_parsing(pdf, family, path, style):
    """fpdf2's own add_font, less the variation tables a lent font leaves out (a viewer draws the default instance)."""
    pdf.add_font(family, style, path)
    ttfont = pdf.fonts[f"{family.lower()}{style}"].ttfont
    for tag in font_cache.VARIATIONS & set(ttfont.keys()):
        del ttfont[tag]


def lent(pdf, family, path, style):
    font_cache.add_font(pdf, family, path, style)


def test_each_document_is_the_one_fpdf2_writes_with_the_fonts_parsed_for_it_alone(paths):
    expected = {text: bytes(document(text, paths, fpdf2_parsing).output()) for text in set(TEXTS)}
    for order in (TEXTS, TEXTS[::-1]):
        assert [bytes(document(text, paths, lent).output()) for text in order] == [expected[text] for text in order]


def test_a_shaped_document_is_the_one_fpdf2_writes_too(paths):
    texts = ["شركة محمد", "Ωmega אבג محمد", "شركة محمد"]
    expected = {text: bytes(document(text, paths, fpdf2_parsing, shaped=True).output()) for text in set(texts)}
    assert [bytes(document(text, paths, lent, shaped=True).output()) for text in texts] == [expected[t] for t in texts]


def test_a_cjk_collection_font_makes_the_pdf_version_fpdf2_makes(paths):
    assert bytes(document("山田", paths, lent).output()).startswith(b"%PDF-1.6")


def test_a_document_left_unwritten_changes_nothing_for_the_next(paths):
    expected = bytes(document("山田 太郎 Łukasz", paths, fpdf2_parsing).output())
    document("鈴木 花子 Zoë", paths, lent)  # drawn into, never written: its subset is never taken
    assert bytes(document("山田 太郎 Łukasz", paths, lent).output()) == expected


def test_documents_share_the_parsed_font_but_not_what_drawing_and_subsetting_change(paths):
    first, second = document("山田 محمد", paths, lent), document("鈴木 محمد", paths, lent)
    for family in ("cjk", "arabic"):
        one, other = first.fonts[family], second.fonts[family]
        assert one.cmap is other.cmap and one.glyph_ids is other.glyph_ids
        assert one.ttfont is not other.ttfont and one.subset is not other.subset and one.cw is not other.cw
        assert one.ttfont["cmap"].tables[0] is not other.ttfont["cmap"].tables[0]
    one, other = first.fonts["arabic"], second.fonts["arabic"]  # TrueType outlines (the CJK font's are CFF)
    assert one.ttfont["glyf"] is not other.ttfont["glyf"]


def test_every_font_names_the_text_font_and_the_fallbacks_without_a_font_directory(paths):
    assert record_pages.every_font(None) == [fonts.check(None), *fonts.fallback_fonts(None)]
    assert paths[0] == fonts.check(None) and paths[2] == fonts.fallback_fonts(None)[-1]


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
