"""An uploaded image as a one-page PDF, upright and fitted to an A4-sized page.

The page keeps the image's aspect ratio, scaled so that it fits A4 in the image's orientation: a
phone photo or a 300 dpi scan becomes a normal page rather than a poster, and field sizes stay sane.
JPEG bytes go into the PDF as they are, with the EXIF orientation applied by the drawing.

Decoding costs memory and time by the pixel, not by the byte: a 9400x9400 PNG of one colour is 280 KB
and takes 1.4 GB to decode. So the size in the header is checked before anything is decoded.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator

from fpdf import FPDF
from fpdf.drawing_primitives import Transform
from PIL import ExifTags, Image, ImageOps

from signsvc.pdf.errors import PdfError

A4 = (595.28, 841.89)
FORMATS = ("PNG", "JPEG", "WEBP", "GIF", "TIFF")  # never more: some Pillow plugins run Ghostscript
UNREADABLE = "The image can't be read"
# An A4 page scanned at 600 dpi is 35 megapixels, a 48-megapixel phone photo 8064x6048: both fit.
MAX_PIXELS = 50_000_000


def image_to_pdf(data: bytes) -> bytes:
    """A one-page PDF of a PNG, JPEG, WebP, GIF (first frame) or TIFF (first page). Raises PdfError."""
    image = _open(data)
    try:
        if image.format in ("JPEG", "MPO"):
            return _jpeg_page(data, image)
        return _page(ImageOps.exif_transpose(image))
    except Exception as error:  # Pillow and fpdf2 raise many types on a broken image
        raise PdfError(UNREADABLE) from error


def _open(data: bytes) -> Image.Image:
    """The image with its header read and nothing decoded yet; PdfError when it has more than MAX_PIXELS."""
    try:
        with _without_pillows_pixel_limit():
            image = Image.open(io.BytesIO(data), formats=FORMATS)
    except Exception as error:
        raise PdfError(UNREADABLE) from error
    width, height = image.size
    if width * height > MAX_PIXELS:
        raise PdfError(too_large(width, height))
    return image


def too_large(width: int, height: int) -> str:
    return (
        f"The image is {width}x{height} pixels ({width * height / 1e6:.1f} megapixels); "
        f"at most {MAX_PIXELS // 1_000_000} megapixels are allowed"
    )


@contextlib.contextmanager
def _without_pillows_pixel_limit() -> Iterator[None]:
    """Pillow refuses a huge image in `open`, before its size can be told; `_open` checks a lower limit on the
    size, with a message that names it. Pool workers run one call at a time, so no other decode sees this."""
    pillow_limit, Image.MAX_IMAGE_PIXELS = Image.MAX_IMAGE_PIXELS, None
    try:
        yield
    finally:
        Image.MAX_IMAGE_PIXELS = pillow_limit


def _jpeg_page(data: bytes, image: Image.Image) -> bytes:
    width, height = image.size
    orientation = image.getexif().get(ExifTags.Base.Orientation, 1)
    # Decoding at 1/8 size proves the file is whole, at a fraction of the cost of a full decode.
    image.draft(None, (width // 8, height // 8))
    image.load()
    turned = orientation in (5, 6, 7, 8)
    page_width, page_height = _fit(height, width) if turned else _fit(width, height)
    scale = page_width / (height if turned else width)
    pdf = _document(page_width, page_height)
    if image.format == "MPO":
        pdf.set_image_filter("DCTDecode")  # fpdf2 passes only plain JPEG through; stay lossy, not 10x bigger
    with pdf.transform(_orientation(orientation, width * scale, height * scale)):
        pdf.image(io.BytesIO(data), x=0, y=0, w=width * scale, h=height * scale)
    return bytes(pdf.output())


def _page(image: Image.Image) -> bytes:
    width, height = _fit(*image.size)
    pdf = _document(width, height)
    pdf.image(image, x=0, y=0, w=width, h=height)
    return bytes(pdf.output())


def _document(width: float, height: float) -> FPDF:
    pdf = FPDF(unit="pt", format=(width, height))
    pdf.set_margin(0)
    pdf.set_auto_page_break(False)
    pdf.add_page()
    return pdf


def _fit(width: float, height: float) -> tuple[float, float]:
    """The page size: the image scaled to fit A4, portrait or landscape as the image is."""
    box_width, box_height = A4 if height >= width else A4[::-1]
    scale = min(box_width / width, box_height / height)
    return width * scale, height * scale


def _orientation(orientation: int, w: float, h: float) -> Transform:
    """Maps the stored image (w by h, y down) onto the page as EXIF orientation 1..8 says it is shown."""
    return Transform(
        *{
            2: (-1, 0, 0, 1, w, 0),
            3: (-1, 0, 0, -1, w, h),
            4: (1, 0, 0, -1, 0, h),
            5: (0, 1, 1, 0, 0, 0),
            6: (0, 1, -1, 0, h, 0),
            7: (0, -1, -1, 0, h, w),
            8: (0, -1, 1, 0, 0, w),
        }.get(orientation, (1, 0, 0, 1, 0, 0))
    )
