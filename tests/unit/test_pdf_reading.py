"""Every way an uploaded PDF can be unusable ends in a PdfError saying why, quickly."""

import pickle
import time

import pytest

from signsvc.pdf import forms
from signsvc.pdf.errors import PdfError
from tests.support.samples import RawPdf, encrypted, pages_pdf, refs, text_pdf


def fails_quickly(data, message, **options):
    started = time.perf_counter()
    with pytest.raises(PdfError) as caught:
        forms.inspect_pdf(data, **options)
    assert str(caught.value) == message
    assert time.perf_counter() - started < 2
    return caught.value


@pytest.mark.parametrize("data", [b"", b"hello", b"\x89PNG\r\n\x1a\n" + bytes(100), b"PK\x03\x04" + bytes(100)])
def test_bytes_that_are_not_a_pdf(data):
    fails_quickly(data, "The file is not a PDF")


def test_a_pdf_that_needs_a_password():
    fails_quickly(
        encrypted(text_pdf("secret"), user="secret"),
        "The PDF is protected by a password; upload it without the password",
    )


def test_a_pdf_with_only_an_owner_password_opens_like_in_any_viewer():
    assert len(forms.inspect_pdf(encrypted(text_pdf("a", "b"), user=""))["pages"]) == 2


def test_a_pdf_without_pages():
    fails_quickly(pages_pdf(), "The PDF has no pages")


@pytest.mark.parametrize("fraction", [0.3, 0.6, 0.95])
def test_a_truncated_pdf(fraction):
    data = text_pdf("one", "two")
    fails_quickly(data[: int(len(data) * fraction)], "The PDF is damaged and can't be read")


def test_garbage_after_a_pdf_header():
    fails_quickly(b"%PDF-1.7\n" + bytes(range(256)) * 20, "The PDF is damaged and can't be read")


def test_too_many_pages():
    fails_quickly(text_pdf(*"abcde"), "The PDF has 5 pages; at most 3 are allowed", max_pages=3)


def test_deeply_nested_objects_are_refused_without_blowing_the_stack():
    depth = 100_000
    fails_quickly(
        pages_pdf("/MediaBox [0 0 100 100] /Annots " + "[" * depth + "]" * depth),
        "The PDF is nested too deeply to be read",
    )


def test_a_page_tree_that_reuses_its_nodes_is_not_expanded():
    """Eight levels of ten references to the next level would be a hundred million pages."""
    pdf = RawPdf()
    catalog, levels = pdf.reserve(), [pdf.reserve() for _ in range(8)]
    for level, below in zip(levels, [*levels[1:], pdf.add("<< /Type /Page /MediaBox [0 0 10 10] >>")], strict=True):
        pdf.put(level, f"<< /Type /Pages /Kids [{refs([below] * 10)}] >>")
    pdf.put(catalog, f"<< /Type /Catalog /Pages {levels[0]} 0 R >>")
    fails_quickly(pdf.output(catalog), "The PDF has too many pages; at most 1000 are allowed")


def test_a_page_tree_that_loops():
    pdf = RawPdf()
    catalog, top, below = pdf.reserve(), pdf.reserve(), pdf.reserve()
    pdf.put(top, f"<< /Type /Pages /Kids [{below} 0 R] >>")
    pdf.put(below, f"<< /Type /Pages /Kids [{top} 0 R] >>")
    pdf.put(catalog, f"<< /Type /Catalog /Pages {top} 0 R >>")
    fails_quickly(pdf.output(catalog), "The PDF is damaged and can't be read")


def test_the_error_crosses_a_process_boundary():
    """These functions run in a process pool: the error must pickle as itself."""
    error = fails_quickly(b"nope", "The file is not a PDF")
    assert str(pickle.loads(pickle.dumps(error))) == "The file is not a PDF"
