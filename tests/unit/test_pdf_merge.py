"""Merging PDFs: every page of every file, in order."""

import io

import pypdf
import pytest

from signsvc.pdf import merge
from signsvc.pdf.errors import PdfError
from tests.support.samples import encrypted, text_pdf


def texts(pdf):
    return [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages]


def test_all_pages_in_order():
    merged = merge.merge_pdfs([text_pdf("A1", "A2"), text_pdf("B1"), encrypted(text_pdf("C1"), user="")])
    assert texts(merged) == ["A1", "A2", "B1", "C1"]


def test_a_bad_file_is_named_by_its_position():
    with pytest.raises(PdfError, match=r"^The file is not a PDF \(file 2\)$"):
        merge.merge_pdfs([text_pdf("A1"), b"nope"])


def test_nothing_to_merge():
    with pytest.raises(PdfError, match=r"^There are no PDFs to merge$"):
        merge.merge_pdfs([])
