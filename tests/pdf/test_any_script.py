"""Any signer's name on a default install: the packaged CJK font, and a visible substitute (logged, and named in
the audit log) for a character no installed font can draw, rather than a document that is never produced."""

import io
import logging
import shutil

import pytest
from PIL import Image

from signsvc.pdf import audit_log, font_files, fonts, typed_signature
from tests.pdf.test_pdf_audit_log import make_log, submitter
from tests.support.pdf_text import page_texts


def text_of(pdf: bytes) -> str:
    return " ".join(" ".join(page_texts(pdf)).split())


@pytest.fixture
def no_fallback_font(monkeypatch):
    monkeypatch.setattr(fonts, "fallback_fonts", lambda font_dir=None: ())


def test_a_character_no_font_has_becomes_a_white_square():
    assert fonts.replaced("Bob \U00013000.", frozenset(map(ord, "Bob .\u25a1"))) == "Bob \u25a1."


def test_without_a_white_square_in_the_fonts_the_substitute_is_a_question_mark():
    assert fonts.replaced("Bob \U00013000", frozenset(map(ord, "Bob "))) == "Bob ?"


def test_spaces_and_control_characters_are_never_counted_as_undrawable():
    assert fonts.undrawable(["a\u3000b\n\u200b"], frozenset(map(ord, "ab"))) == []


def test_the_replacement_note_names_the_characters_by_code_point():
    assert fonts.code_points(["山", "田"]) == "U+5C71, U+7530"


def test_the_packaged_noto_cjk_font_is_the_cjk_fallback_without_one_in_the_font_directory(tmp_path):
    path = font_files.fallback_fonts.__wrapped__(str(tmp_path))[-1]
    assert path.endswith("NotoSansCJK-Regular.ttc") and ord("山") in fonts.coverage(path)


def test_a_droid_fallback_font_in_the_font_directory_takes_the_cjk_place(tmp_path):
    shutil.copy(font_files.packaged_cjk_font(), tmp_path / "DroidSansFallbackFull.ttf")
    assert font_files.fallback_fonts.__wrapped__(str(tmp_path))[-1] == str(tmp_path / "DroidSansFallbackFull.ttf")


def test_the_packaged_fonts_draw_a_cjk_name_in_the_audit_log():
    text = text_of(audit_log.render(make_log(submitters=[submitter(name="山田 太郎")])))
    assert "山田 太郎" in text and "no installed font" not in text


def test_the_audit_log_notes_the_characters_it_replaced_and_logs_a_warning(no_fallback_font, caplog):
    with caplog.at_level(logging.WARNING, logger="signsvc.pdf.fonts"):
        text = text_of(audit_log.render(make_log(submitters=[submitter(name="山田 太郎")])))
    note = "Characters that no installed font can draw were replaced with ?: U+592A, U+5C71, U+7530, U+90CE"
    assert note in text
    assert any("山 (U+5C71)" in record.getMessage() for record in caplog.records)


def test_an_arabic_name_is_drawn_without_substitutes():
    assert "no installed font" not in text_of(audit_log.render(make_log(submitters=[submitter(name="محمد")])))


def test_a_typed_signature_with_characters_no_font_has_is_still_drawn(no_fallback_font, caplog):
    with caplog.at_level(logging.WARNING, logger="signsvc.pdf.fonts"):
        image = Image.open(io.BytesIO(typed_signature.render_typed_signature("山田 太郎")))
    assert image.getbbox() is not None
    assert any("typed signature" in record.getMessage() for record in caplog.records)


def test_drawable_scripts_include_every_script_the_packaged_fonts_bring():
    assert {"Latin", "Greek", "Cyrillic", "Hebrew", "Arabic", "Devanagari", "Thai", "CJK", "Kana", "Hangul"} <= set(
        fonts.drawable_scripts()
    )
