"""Uploaded images become one-page PDFs, upright and page-sized."""

import io
import struct
import zlib

import pypdf
import pytest
from PIL import Image, ImageOps

from signsvc.pdf import images, previews
from signsvc.pdf.errors import PdfError
from tests.support.samples import image_bytes, jpeg_with_orientation, quarters

A4_LONG, A4_SHORT = 841.89, 595.28


def page_size(pdf):
    box = pypdf.PdfReader(io.BytesIO(pdf)).pages[0].mediabox
    return round(float(box.width), 2), round(float(box.height), 2)


@pytest.mark.parametrize("format", ["PNG", "JPEG", "WEBP", "GIF", "TIFF"])
def test_each_image_format_becomes_one_landscape_page_fitted_to_a4(format):
    pdf = images.image_to_pdf(image_bytes(format, size=(300, 200)))
    assert len(pypdf.PdfReader(io.BytesIO(pdf)).pages) == 1
    assert page_size(pdf) == (A4_LONG, round(A4_LONG * 2 / 3, 2))


def test_a_tall_scan_fits_a4_portrait():
    width, height = page_size(images.image_to_pdf(image_bytes("PNG", size=(850, 1100), color="white")))
    assert width == A4_SHORT and height == pytest.approx(A4_SHORT * 1100 / 850, abs=0.01)


def test_jpeg_bytes_go_into_the_pdf_unchanged():
    jpeg = image_bytes("JPEG", size=(640, 480), quality=70)
    assert jpeg in images.image_to_pdf(jpeg)


def test_exif_orientation_6_turns_the_page():
    width, height = page_size(images.image_to_pdf(jpeg_with_orientation(6)))
    assert width < height


@pytest.mark.parametrize("orientation", range(1, 9))
def test_the_page_shows_the_photo_as_a_camera_app_would(orientation):
    jpeg = jpeg_with_orientation(orientation)
    expected = ImageOps.exif_transpose(Image.open(io.BytesIO(jpeg)))
    shown = Image.open(io.BytesIO(previews.render_pages(images.image_to_pdf(jpeg), width=expected.width)[0]))
    assert shown.size == expected.size
    for x, y in [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)]:
        point = (int(x * expected.width), int(y * expected.height))
        assert (
            sum(abs(a - b) for a, b in zip(shown.convert("RGB").getpixel(point), expected.getpixel(point), strict=True))
            < 60
        )


def test_the_first_frame_of_an_animated_gif():
    output = io.BytesIO()
    red, blue = Image.new("RGB", (60, 40), "red"), Image.new("RGB", (60, 40), "blue")
    red.save(output, "GIF", save_all=True, append_images=[blue])
    shown = Image.open(io.BytesIO(previews.render_pages(images.image_to_pdf(output.getvalue()), width=60)[0]))
    red, _green, blue = shown.convert("RGB").getpixel((30, 20))
    assert red > 200 and blue < 60


def test_a_transparent_png():
    output = io.BytesIO()
    Image.new("RGBA", (60, 40), (0, 0, 0, 0)).save(output, "PNG")
    assert len(pypdf.PdfReader(io.BytesIO(images.image_to_pdf(output.getvalue()))).pages) == 1


def test_a_multi_picture_jpeg_stays_small():
    """Phones write MPO (a JPEG plus depth pictures); fpdf2 won't pass it through, so it is re-encoded as JPEG."""
    output, photo = io.BytesIO(), quarters((1200, 800))
    photo.save(output, "MPO", save_all=True, append_images=[photo], quality=90)
    assert len(images.image_to_pdf(output.getvalue())) < len(output.getvalue())


@pytest.mark.parametrize(
    "data",
    [
        b"not an image",
        b"\x89PNG\r\n\x1a\n" + bytes(50),
        image_bytes("JPEG", size=(400, 300))[:-200],  # whole header, part of the picture
        image_bytes("PNG", size=(400, 300))[:100],
        b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n",  # Pillow could, through Ghostscript
        image_bytes("BMP"),
    ],
)
def test_an_unreadable_or_unaccepted_image(data):
    with pytest.raises(PdfError, match=r"^The image can't be read$"):
        images.image_to_pdf(data)


def test_an_image_claiming_a_huge_size_is_refused_before_decoding():
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 30_000, 30_000, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b""))
        + chunk(b"IEND", b"")
    )
    with pytest.raises(
        PdfError, match=r"^The image is 30000x30000 pixels \(900\.0 megapixels\); at most 50 megapixels are allowed$"
    ):
        images.image_to_pdf(png)
