"""Office files become PDF through a real LibreOffice.

Tests that convert need `soffice`: without it they are skipped, naming the packages to install; CI
installs LibreOffice and sets SIGNSVC_TEST_REQUIRE_SYSTEM=1, so there they fail rather than skip.
"""

import asyncio
import io
import os
import shutil
import zipfile
from pathlib import Path

import docx
import openpyxl
import pptx
import pytest
from pypdf import PdfReader

from signsvc.infra.office import ConversionFailed, ConversionUnavailable, OfficeConverter
from signsvc.templates import docx_variables
from tests.support.paths import FILES
from tests.support.system import SOFFICE


def make_docx(text: str) -> bytes:
    document = docx.Document()
    document.add_paragraph(text)
    return save(document)


def make_xlsx(text: str) -> bytes:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet["A1"], sheet["A2"], sheet["B2"] = text, "second row", 42
    return save(workbook)


def make_pptx(text: str) -> bytes:
    presentation = pptx.Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[0])
    slide.shapes.title.text = text
    return save(presentation)


def make_odt(text: str) -> bytes:
    """The smallest ODF text document: a stored mimetype first, a manifest and the content."""
    content = (
        '<?xml version="1.0" encoding="UTF-8"?><office:document-content office:version="1.2" '
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>'
        f"<text:p>{text}</text:p></office:text></office:body></office:document-content>"
    )
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest manifest:version="1.2" '
        'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
        '<manifest:file-entry manifest:full-path="/" '
        'manifest:media-type="application/vnd.oasis.opendocument.text"/>'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
        "</manifest:manifest>"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.text", zipfile.ZIP_STORED)
        archive.writestr("META-INF/manifest.xml", manifest, zipfile.ZIP_DEFLATED)
        archive.writestr("content.xml", content, zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def make_rtf(text: str) -> bytes:
    return b"{\\rtf1\\ansi " + text.encode() + b"}"


def make_doc(text: str) -> bytes:
    """A Word 97 file made once by LibreOffice from a python-docx document holding `text`."""
    assert text == "Word 97 keeps this sentence."
    return (FILES / "hello.doc").read_bytes()


def save(document) -> bytes:
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def pdf_text(data: bytes) -> str:
    reader = PdfReader(io.BytesIO(data))
    assert len(reader.pages) >= 1
    return " ".join(page.extract_text() for page in reader.pages)


def soffice_processes(marker: str) -> list[str]:
    """Command lines of live processes that name `marker` (zombies have none)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in command:
            found.append(command)
    return found


async def all_gone(marker: str) -> bool:
    """Whether every process naming `marker` is gone; SIGKILL lands within moments, so wait up to 5 s."""
    for _ in range(500):
        if not soffice_processes(marker):
            return True
        await asyncio.sleep(0.01)
    return False


async def soffice_bin_started(marker: str) -> None:
    async with asyncio.timeout(30):
        while not any("soffice.bin" in command for command in soffice_processes(marker)):
            await asyncio.sleep(0.01)


@pytest.fixture
async def converter(tmp_path):
    async with OfficeConverter(workdir=str(tmp_path)) as converter:
        yield converter


@SOFFICE
def test_libreoffice_is_installed():
    assert shutil.which("soffice"), "LibreOffice (soffice) must be installed to convert office files"


@SOFFICE
@pytest.mark.parametrize(
    "kind,make,text",
    [
        ("docx", make_docx, "Hello from a DOCX file"),
        ("xlsx", make_xlsx, "Hello from an XLSX cell"),
        ("pptx", make_pptx, "Hello from a PPTX title"),
        ("odt", make_odt, "Hello from an ODT file"),
        ("rtf", make_rtf, "Hello from an RTF file"),
        ("doc", make_doc, "Word 97 keeps this sentence."),
    ],
)
async def test_each_office_kind_becomes_a_pdf_with_its_text(converter, kind, make, text):
    result = await converter.to_pdf(make(text), kind)
    assert result.startswith(b"%PDF-")
    assert text in pdf_text(result)


@SOFFICE
async def test_a_docx_filled_with_variables_becomes_a_pdf_with_its_values(converter):
    document = docx.Document()
    document.add_paragraph("Order of [[name]] <[[company.name]]>")
    document.add_paragraph("[[if: total > 1000]]")
    document.add_paragraph("Free shipping.")
    document.add_paragraph("[[end]]")
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "[[for:items]][[item.name]]"
    table.cell(0, 1).text = "[[item.price]][[end]]"
    document.add_paragraph("Notes: [[notes]]")
    variables = {
        "name": "Ann & Bob",
        "company": {"name": "Acme"},
        "total": 1500,
        "items": [{"name": "Laptop", "price": "1250.00"}, {"name": "Mouse", "price": "150.00"}],
        "notes": "<ul><li><b>Delivery</b> in 5 days</li></ul>",
    }
    text = pdf_text(await converter.to_pdf(docx_variables.render(save(document), variables), "docx"))
    for expected in ("Order of Ann & Bob <Acme>", "Free shipping.", "Laptop", "1250.00", "Mouse", "Delivery in 5 days"):
        assert expected in text
    assert "[[" not in text


@SOFFICE
async def test_two_conversions_run_in_parallel_each_in_its_own_profile_until_close(tmp_path):
    converter = OfficeConverter(max_parallel=2, workdir=str(tmp_path))
    first, second = await asyncio.gather(
        converter.to_pdf(make_docx("The first document"), "docx"),
        converter.to_pdf(make_docx("The second document"), "docx"),
    )
    assert "The first document" in pdf_text(first)
    assert "The second document" in pdf_text(second)
    [root] = tmp_path.iterdir()
    assert sorted(path.name for path in root.iterdir()) == ["profile-0", "profile-1"], "job directories are removed"
    await converter.close()
    assert list(tmp_path.iterdir()) == []


@SOFFICE
async def test_bytes_that_are_not_a_docx_fail_with_a_plain_message(converter):
    with pytest.raises(ConversionFailed) as failure:
        await converter.to_pdf(os.urandom(4000), "docx")
    assert failure.value.message == (
        "The DOCX document could not be converted to PDF: the file is damaged or is not a DOCX document"
    )


async def test_without_libreoffice_conversion_is_unavailable(tmp_path):
    async with OfficeConverter(soffice=str(tmp_path / "no-such-soffice"), workdir=str(tmp_path)) as converter:
        with pytest.raises(ConversionUnavailable) as failure:
            await converter.to_pdf(make_rtf("Hello"), "rtf")
    assert failure.value.message == (
        "Office documents cannot be converted: LibreOffice is not installed on this server"
    )
    assert failure.value.status == 422
    assert list(tmp_path.iterdir()) == [], "nothing is created before LibreOffice is found"


@SOFFICE
async def test_a_conversion_over_time_is_killed_with_its_children_and_the_slot_still_works(tmp_path):
    async with OfficeConverter(max_parallel=1, timeout=0.5, workdir=str(tmp_path)) as converter:
        with pytest.raises(ConversionFailed) as failure:
            await converter.to_pdf(make_docx("Too slow"), "docx")
        assert failure.value.message == "The DOCX document could not be converted to PDF within 0.5 seconds"
        assert await all_gone(str(tmp_path))
        converter.timeout = 120
        assert "After the timeout" in pdf_text(await converter.to_pdf(make_docx("After the timeout"), "docx"))


@SOFFICE
async def test_a_cancelled_conversion_kills_libreoffice(tmp_path):
    async with OfficeConverter(workdir=str(tmp_path)) as converter:
        task = asyncio.ensure_future(converter.to_pdf(make_docx("Cancelled"), "docx"))
        await soffice_bin_started(str(tmp_path))
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await all_gone(str(tmp_path))


async def test_an_unknown_kind_is_a_programming_error(converter):
    with pytest.raises(ValueError):
        await converter.to_pdf(b"%PDF-1.7", "pdf")
