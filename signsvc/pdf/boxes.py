"""Where things are on a document's pages, as the engines find them and the templates place fields there.

Nothing here loads an engine: the server process reads the pool's answers (`signsvc.infra.pdf_calls`) in these
types before any PDF library is imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Box:
    """A box on a page: `page` 0-based; `x, y, w, h` fractions of the displayed page from its top-left corner; the
    displayed page's size in PDF points (for sizes given in points)."""

    page: int
    x: float
    y: float
    w: float
    h: float
    page_width: float
    page_height: float


@dataclass(frozen=True)
class TextTag:
    """A `{{...}}` text tag of a PDF: as written (with the braces), its body (without) and where it is."""

    text: str
    body: str
    box: Box


@dataclass(frozen=True)
class FieldTag:
    """A field tag of an HTML document, in document order: its element's name, its attributes as written, and the
    boxes drawn for it (none when it was not displayed)."""

    tag: str
    attributes: dict[str, str]
    boxes: list[Box] = field(default_factory=list)
