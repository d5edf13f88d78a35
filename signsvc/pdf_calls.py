"""The PDF engine functions as the process pool runs them.

`signsvc.pdf` takes about a second to import (pypdf, fpdf2, Pillow, PDFium), so only pool workers
import it; the server process refers to these functions by name and never loads the engines.
"""

from __future__ import annotations

from typing import Any


class EngineError(Exception):
    """The input cannot be used; the message says why, for the API user."""


def sniff(data: bytes) -> str | None:
    return _call("sniff", data)


def image_to_pdf(data: bytes) -> bytes:
    return _call("image_to_pdf", data)


def merge_pdfs(documents: list[bytes]) -> bytes:
    return _call("merge_pdfs", documents)


def prepare(pdf: bytes) -> dict[str, Any]:
    """Pages, form fields and page images of a PDF; inspecting first names a PDF without pages."""
    from signsvc.pdf import previews

    info = _call("inspect_pdf", pdf)
    return {**info, "previews": _call("render_pages", pdf), "preview_extension": previews.EXTENSION,
            "preview_content_type": previews.CONTENT_TYPE}


def ready() -> None:
    """Nothing: submitted once per worker at start so that its imports happen before a request needs it."""


def _call(name: str, *args: Any) -> Any:
    import signsvc.pdf as engines

    try:
        return getattr(engines, name)(*args)
    except engines.PdfError as exc:
        raise EngineError(str(exc)) from None
