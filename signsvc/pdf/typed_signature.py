"""A signature given as text, drawn as a PNG in a handwriting-like font."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw, ImageFont

from signsvc.pdf import fonts
from signsvc.pdf.errors import PdfError

SIZE = (600, 200)
MARGIN = 16
INK = (16, 24, 64, 255)  # dark blue-black, as a pen writes
MAX_FONT_SIZE = 120
MAX_LENGTH = 200  # the API allows less; this bounds the work whatever the caller sends
_PROBE_SIZE = 100

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


def render_typed_signature(text: str, font_dir: str | None = None) -> bytes:
    """A 600x200 PNG, transparent but for the text, fitted and centred. Raises PdfError for no text."""
    text = " ".join(text.split())
    if not text or len(text) > MAX_LENGTH:
        raise PdfError(f"A typed signature needs from 1 to {MAX_LENGTH} characters")
    path = _covering_font(text, font_dir)
    text = _drawable(text, path)
    font = _fitted_font(text, path)
    image = Image.new("RGBA", SIZE, (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    origin = ((SIZE[0] - (right - left)) / 2 - left, (SIZE[1] - (bottom - top)) / 2 - top)
    draw.text(origin, text, font=font, fill=INK)
    output = io.BytesIO()
    image.save(output, "PNG")  # zlib's default level: 3 ms; optimize=True took 17 ms to save 6%
    return output.getvalue()


def _covering_font(text: str, font_dir: str | None) -> str | None:
    """The signature font, or else the first of the text font and the fallback fonts that has every character
    of the text (else the one that has most of them): a name in Arabic or Japanese would otherwise be drawn as
    empty boxes. Plain ASCII without a signature font is drawn in Pillow's own font."""
    path = fonts.signature_font(font_dir)
    needed = {ord(char) for char in text if not char.isspace()}
    try:
        if path is not None and needed <= fonts.coverage(path):
            return path
    except PdfError:  # a broken font file: `_font` falls back to Pillow's own
        return path
    if path is None and text.isascii():
        return None
    candidates = [font for font in (fonts.text_font(font_dir), *fonts.fallback_fonts(font_dir)) if font]
    return max(candidates, key=lambda font: len(needed & fonts.coverage(font)), default=path)


def _drawable(text: str, path: str | None) -> str:
    """The text with the characters its font lacks as `fonts.substitute` (logged); as it is in Pillow's own font."""
    try:
        drawn = fonts.coverage(path) if path else None
    except PdfError:  # a broken font file: `_font` falls back to Pillow's own
        drawn = None
    if drawn is None or not (lacking := fonts.undrawable([text], drawn)):
        return text
    fonts.warn_replaced(lacking, "a typed signature")
    return fonts.replaced(text, drawn)


def _fitted_font(text: str, path: str | None) -> Font:
    """The font at the largest size (up to MAX_FONT_SIZE) at which the text fits inside the margins."""
    left, top, right, bottom = _font(path, _PROBE_SIZE).getbbox(text)
    room = (SIZE[0] - 2 * MARGIN) / max(right - left, 1), (SIZE[1] - 2 * MARGIN) / max(bottom - top, 1)
    return _font(path, max(1, min(MAX_FONT_SIZE, int(_PROBE_SIZE * min(room)))))


def _font(path: str | None, size: int) -> Font:
    if path is not None:
        try:
            return ImageFont.truetype(path, size)
        except OSError:  # a broken font file: the fallback below still writes the signature
            pass
    return ImageFont.load_default(size)
