"""An uploaded image as a one-page PDF, upright and fitted to an A4-sized page.

The page keeps the image's aspect ratio, scaled so that it fits A4 in the image's orientation: a
phone photo or a 300 dpi scan becomes a normal page rather than a poster, and field sizes stay sane.
JPEG bytes go into the PDF as they are, with the EXIF orientation applied by the drawing.
"""

from __future__ import annotations

import io
import warnings

from fpdf import FPDF
from fpdf.drawing_primitives import Transform
from PIL import ExifTags, Image, ImageOps

from signsvc.pdf.errors import PdfError

A4 = (595.28, 841.89)
FORMATS = ("PNG", "JPEG", "WEBP", "GIF", "TIFF")  # never more: some Pillow plugins run Ghostscript
UNREADABLE = "The image can't be read"
TOO_LARGE = f"The image is too large; at most {(Image.MAX_IMAGE_PIXELS or 0) // 1_000_000} megapixels are allowed"


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
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            return Image.open(io.BytesIO(data), formats=FORMATS)
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as error:
        raise PdfError(TOO_LARGE) from error
    except Exception as error:
        raise PdfError(UNREADABLE) from error


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
    return Transform(*{
        2: (-1, 0, 0, 1, w, 0),
        3: (-1, 0, 0, -1, w, h),
        4: (1, 0, 0, -1, 0, h),
        5: (0, 1, 1, 0, 0, 0),
        6: (0, 1, -1, 0, h, 0),
        7: (0, -1, -1, 0, h, w),
        8: (0, -1, 1, 0, 0, w),
    }.get(orientation, (1, 0, 0, 1, 0, 0)))
