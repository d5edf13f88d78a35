"""Recognising an upload's kind by its content, whatever its name says."""

import io
import zipfile

import docx
import openpyxl
import pptx
import pytest

from signsvc.pdf import kinds
from tests.support.samples import image_bytes, text_pdf


def saved(document):
    output = io.BytesIO()
    document.save(output)
    return output.getvalue()


def zipped(*members):
    output = io.BytesIO()
    with zipfile.ZipFile(output, "w") as archive:
        for name, data in members:
            archive.writestr(name, data)
    return output.getvalue()


def odf(mimetype):
    return zipped(("mimetype", mimetype), ("content.xml", "<office:document-content/>"))


@pytest.mark.parametrize(
    "kind, data",
    [
        ("pdf", text_pdf("x")),
        ("pdf", b"junk before the header\n" + text_pdf("x")),
        ("png", image_bytes("PNG")),
        ("jpeg", image_bytes("JPEG")),
        ("webp", image_bytes("WEBP")),
        ("gif", image_bytes("GIF")),
        ("tiff", image_bytes("TIFF")),
        ("docx", saved(docx.Document())),
        ("xlsx", saved(openpyxl.Workbook())),
        ("pptx", saved(pptx.Presentation())),
        ("odt", odf("application/vnd.oasis.opendocument.text")),
        ("doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)),
        ("rtf", b"{\\rtf1\\ansi Hello}"),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_each_kind_is_recognised(kind, data):
    assert kinds.sniff(data) == kind


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"just some text",
        image_bytes("BMP"),
        zipped(("notes.txt", "a plain zip")),
        odf("application/vnd.oasis.opendocument.spreadsheet"),
        b"PK\x03\x04 but not really a zip",
        b"RIFF\x00\x00\x00\x00WAVEfmt ",
    ],
    ids=["empty", "text", "bmp", "zip", "ods", "broken zip", "wav"],
)
def test_anything_else_is_not(data):
    assert kinds.sniff(data) is None


def test_a_zip_holding_a_pdf_is_not_a_pdf():
    assert kinds.sniff(zipped(("contract.pdf", text_pdf("x")))) is None
