"""Several PDFs as one, pages in order (the documents of a template, the merge tool).

Same-named form fields of different files collapse into one field; callers that merge forms
someone will still fill should merge the filled and flattened results instead.
"""

from __future__ import annotations

import io

import pypdf

from signsvc.pdf import reading
from signsvc.pdf.errors import PdfError


def merge_pdfs(documents: list[bytes], *, max_pages: int = reading.MAX_PAGES, names: list[str] | None = None) -> bytes:
    """One PDF with every page of `documents` in order; `max_pages` bounds each. Raises PdfError naming
    the file by its name in `names` (default "file 1", "file 2" ...)."""
    if not documents:
        raise PdfError("There are no PDFs to merge")
    names = names or [f"file {number}" for number in range(1, len(documents) + 1)]
    writer = pypdf.PdfWriter()
    for name, data in zip(names, documents, strict=True):
        try:
            with reading.reading(max_pages):
                writer.append(reading.open_pdf(data, max_pages=max_pages))
        except PdfError as error:
            raise PdfError(f"{error} ({name})") from error
    output = io.BytesIO()
    with reading.reading(max_pages):
        writer.write(output)
    return output.getvalue()
