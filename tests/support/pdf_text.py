"""The text of a PDF as the tests read it: with pypdf, and with poppler's pdftotext (which reads right-to-left text
in reading order).

pypdf reads the codes of a CID-keyed CFF font (the packaged Noto Sans CJK) through the font's embedded Identity
CMap as one-byte codes, and yields a NUL before each CJK character; poppler reads the same file right. The NULs
are dropped, so that a test checks what the document says rather than that quirk.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tempfile
from pathlib import Path

import pypdf


def page_texts(pdf: bytes) -> list[str]:
    """pypdf's text of each page."""
    return [page.extract_text().replace("\0", "") for page in pypdf.PdfReader(io.BytesIO(pdf)).pages]


def pdftotext(pdf: bytes) -> str:
    """poppler's text of the whole document, laid out as on the page (a row's label beside its value), with the
    bidirectional embedding marks it adds around right-to-left runs (U+202A to U+202E) left out."""
    program = shutil.which("pdftotext")
    assert program, "pdftotext is not installed (Debian: apt-get install poppler-utils)"
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "document.pdf"
        path.write_bytes(pdf)
        text = subprocess.run(
            [program, "-layout", "-enc", "UTF-8", str(path), "-"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
    return text.translate({mark: None for mark in range(0x202A, 0x202F)})
