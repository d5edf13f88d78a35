"""Any signer's name on a default install: the packaged CJK font, and a visible substitute (logged, and named in
the audit log) for a character no installed font can draw, rather than a document that is never produced."""

import io
import logging

import pypdf
import pytest
from PIL import Image

from signsvc.pdf import audit_log, font_files, fonts, typed_signature
from tests.unit.test_pdf_audit_log import make_log, submitter


def text_of(pdf: bytes) -> str:
    return " ".join(" ".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages).split())


@pytest.fixture
def no_fallback_font(monkeypatch):
    monkeypatch.setattr(fonts, "fallback_font", lambda font_dir=None: None)


def test_a_character_no_font_has_becomes_a_white_square():
    assert fonts.replaced("Bob \U00013000.", frozenset(map(ord, "Bob .\u25a1"))) == "Bob \u25a1."


def test_without_a_white_square_in_the_fonts_the_substitute_is_a_question_mark():
    assert fonts.replaced("Bob \U00013000", frozenset(map(ord, "Bob "))) == "Bob ?"


def test_spaces_and_control_characters_are_never_counted_as_undrawable():
    assert fonts.undrawable(["a\u3000b\n\u200b"], frozenset(map(ord, "ab"))) == []


def test_the_replacement_note_names_the_characters_by_code_point():
    note = fonts.replacement_note(["山", "田"], frozenset([ord("\u25a1")]))
    assert note == "Characters that no installed font can draw were replaced with \u25a1: U+5C71, U+7530"


def test_the_packaged_noto_cjk_font_is_the_fallback_without_a_system_one(monkeypatch, tmp_path):
    monkeypatch.setattr(font_files, "FONT_DIRS", ())
    monkeypatch.setattr(font_files, "PACKAGE_DIRS", ())
    path = fonts.fallback_font.__wrapped__(str(tmp_path))
    assert path is not None and path.endswith("NotoSansCJK-Regular.ttc") and ord("山") in fonts.coverage(path)


def test_a_packaged_cjk_font_draws_a_cjk_name_in_the_audit_log(monkeypatch):
    monkeypatch.setattr(fonts, "fallback_font", lambda font_dir=None: font_files.packaged_cjk_font())
    text = text_of(audit_log.render(make_log(submitters=[submitter(name="山田 太郎")])))
    assert "山" in text and "no installed font" not in text


def test_the_audit_log_notes_the_characters_it_replaced_and_logs_a_warning(no_fallback_font, caplog):
    with caplog.at_level(logging.WARNING, logger="signsvc.pdf.fonts"):
        text = text_of(audit_log.render(make_log(submitters=[submitter(name="山田 太郎")])))
    note = "Characters that no installed font can draw were replaced with \u25a1: U+592A, U+5C71, U+7530, U+90CE"
    assert note in text
    assert any("山 (U+5C71)" in record.getMessage() for record in caplog.records)


def test_an_arabic_name_is_drawn_without_substitutes():
    assert "no installed font" not in text_of(audit_log.render(make_log(submitters=[submitter(name="محمد")])))


def test_a_typed_signature_with_characters_no_font_has_is_still_drawn(no_fallback_font, caplog):
    with caplog.at_level(logging.WARNING, logger="signsvc.pdf.fonts"):
        image = Image.open(io.BytesIO(typed_signature.render_typed_signature("山田 太郎")))
    assert image.getbbox() is not None
    assert any("typed signature" in record.getMessage() for record in caplog.records)


def test_drawable_scripts_include_cjk_and_arabic():
    assert {"Latin", "Greek", "Cyrillic", "Hebrew", "Arabic", "CJK"} <= set(fonts.drawable_scripts())
