"""A signature given as text is drawn as a PNG in a handwriting-like font."""

import hashlib
import io
import shutil

import pytest
from PIL import Image

from signsvc.infra import pdf_calls
from signsvc.pdf import fonts, typed_signature
from signsvc.pdf.errors import PdfError
from tests.support.system import CJK_FONT


def ink_box(png: bytes) -> tuple[int, int, int, int] | None:
    """Where the drawn pixels are (None when nothing is drawn)."""
    return Image.open(io.BytesIO(png)).getchannel("A").getbbox()


async def test_a_typed_signature_is_a_transparent_png_with_dark_ink(pdf_pool):
    made = await pdf_pool.run(pdf_calls.typed_signature, "Bob Smith")
    png, sha256 = made.data, made.sha256
    image = Image.open(io.BytesIO(png))
    assert (image.format, image.mode, image.size) == ("PNG", "RGBA", (600, 200))
    assert sha256 == hashlib.sha256(png).hexdigest()
    assert image.getpixel((0, 0))[3] == 0
    inked = [(count, pixel) for count, pixel in image.getcolors(600 * 200) if pixel[3] == 255]
    assert sum(count for count, _ in inked) > 1000 and all(sum(pixel[:3]) < 150 for _, pixel in inked)


@pytest.mark.parametrize("text", ["B", "Bob Smith", "Maximilian Alexander von Hohenzollern-Sigmaringen Jr. III"])
def test_the_text_is_fitted_inside_the_image_with_a_margin(text):
    left, top, right, bottom = ink_box(typed_signature.render_typed_signature(text))
    assert left >= 8 and top >= 8 and right <= 592 and bottom <= 192
    assert right - left > 300 or bottom - top > 80  # large enough to read, not a speck in the middle


async def test_a_signature_without_text_is_refused(pdf_pool):
    with pytest.raises(pdf_calls.EngineError, match="A typed signature needs from 1 to 200 characters"):
        await pdf_pool.run(pdf_calls.typed_signature, "   ")


def test_a_handwriting_font_is_preferred_to_plain_ones(tmp_path):
    for name in ("DejaVuSans-Oblique.ttf", "GreatVibes-Cursive.ttf", "DancingScript-Regular.ttf", "Arial.ttf"):
        (tmp_path / name).write_bytes(b"")
    assert fonts.find([str(tmp_path)]) == str(tmp_path / "DancingScript-Regular.ttf")
    (tmp_path / "DancingScript-Regular.ttf").unlink()
    assert fonts.find([str(tmp_path)]) == str(tmp_path / "GreatVibes-Cursive.ttf")


def test_dejavu_sans_oblique_is_the_fallback_and_no_font_means_pillows_own(tmp_path):
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "DejaVuSans-Oblique.ttf").write_bytes(b"")
    (tmp_path / "DejaVuSans.ttf").write_bytes(b"")
    assert fonts.find([str(tmp_path)]) == str(tmp_path / "nested" / "DejaVuSans-Oblique.ttf")
    assert fonts.find([str(tmp_path / "missing")]) is None


def test_a_font_in_the_extra_directory_is_used(tmp_path):
    shutil.copy(fonts.fallback_fonts()[1], tmp_path / "DancingScript-Regular.ttf")  # Heebo, packaged
    assert fonts.signature_font(str(tmp_path)) == str(tmp_path / "DancingScript-Regular.ttf")
    assert typed_signature.render_typed_signature("Bob", str(tmp_path)) != typed_signature.render_typed_signature("Bob")


def test_without_any_font_file_pillows_own_font_still_writes(monkeypatch):
    monkeypatch.setattr(fonts, "FONT_DIRS", ())
    fonts.signature_font.cache_clear()
    try:
        assert fonts.signature_font() is None
        assert ink_box(typed_signature.render_typed_signature("Bob Smith")) is not None
    finally:
        fonts.signature_font.cache_clear()


def test_a_broken_font_file_falls_back_to_pillows_own(tmp_path):
    (tmp_path / "DancingScript-Regular.ttf").write_bytes(b"not a font")
    assert ink_box(typed_signature.render_typed_signature("Bob", str(tmp_path))) is not None


def test_the_engine_raises_pdf_error_for_too_much_text():
    with pytest.raises(PdfError):
        typed_signature.render_typed_signature("x" * 201)


@CJK_FONT
def test_characters_the_signature_font_lacks_are_written_in_the_cjk_fallback_font():
    # Drawn in a font without them, every CJK character is the same empty box.
    assert typed_signature.render_typed_signature("山") != typed_signature.render_typed_signature("田")
