"""Font files parsed once per process and lent to each fpdf2 document, which subsets its own copy.

fpdf2 parses the whole font file for every document that adds it (`FPDF.add_font`): a text font about
20 ms, a CJK font about 200 ms, then again about 40 ms building the glyph names when the
document is written. Here each file is parsed once per process (the first document, or the pool
worker's warm-up) into a prototype, and `add_font` gives each document its own `TTFFont` made from it.

A document must never share what it changes: fpdf2 records the characters drawn in the font object and
subsets the fontTools font in place when it writes the file (sharing either gave a later document
missing or wrong glyphs; docs: PDF.md P8). So each document gets fresh mutable parts (the subset map,
the widths it may add to, the missing glyphs) and its own fontTools font, whose tables are shallow
copies of the prototype's decompiled ones (the subsetter replaces a table's dicts and lists rather
than editing them; the objects in its lists, such as cmap subtables, are copied too). Glyph outlines
are shared once unpacked (`_Glyphs`). CFF outlines are never lent (the subsetter edits their
structures in place): a document reads them from the file's bytes itself. The tests check each
document against the one fpdf2 writes on its own, byte for byte, in any order
(tests/pdf/test_pdf_font_cache.py), but for a variable font's variation tables, which a document leaves out
(`VARIATIONS`).
"""

from __future__ import annotations

import copy
import functools
import io
from pathlib import Path
from typing import Any

from fontTools.ttLib import TTFont
from fpdf import FPDF
from fpdf.fonts import SubsetMap, TTFFont

# A variable font's variations: a PDF viewer draws the default instance (the glyf outlines and hmtx widths, which
# HarfBuzz shapes with too), so they are dropped; the subsetter would edit their nested maps in place, which a
# document can't be lent, and would take longer over them than over the rest.
VARIATIONS = frozenset({"fvar", "gvar", "avar", "cvar", "HVAR", "VVAR", "MVAR", "STAT"})
# Tables fpdf2 drops when it writes a document (`fpdf.output.OutputProducer._add_fonts`): taken out of a
# document's font before the subsetter reads them for nothing (the kern table too when there is a GPOS,
# as the subsetter would drop it then).
_DROPPED = (
    frozenset(
        {
            "FFTM",
            "GDEF",
            "GPOS",
            "GSUB",
            "MATH",
            "hdmx",
            "meta",
            "sbix",
            "CBDT",
            "CBLC",
            "EBDT",
            "EBLC",
            "EBSC",
            "SVG ",
            "CPAL",
            "COLR",
        }
    )
    | VARIATIONS
)
# Tables a document reads from the file itself, never from the prototype: CFF outlines (the subsetter
# edits them in place), and tables seldom kept, not worth decompiling ahead.
_NOT_LENT = _DROPPED | {"CFF ", "CFF2", "GlyphOrder", "kern", "JSTF", "BASE"}
_PROTOTYPES: dict[str, TTFFont] = {}  # by file path: what this process has parsed
# The TTFFont attributes each document gets its own of (the rest are read-only and shared).
_OWN = frozenset(
    {
        "i",
        "fontkey",
        "emphasis",
        "ttfont",
        "cw",
        "missing_glyphs",
        "biggest_size_pt",
        "subset",
        "_hbfont",
        "color_font",
        "desc",
    }
)


def add_font(pdf: FPDF, family: str, path: str, style: str = "") -> None:
    """As `pdf.add_font(family, style, path)`, with the file parsed once per process rather than per document.

    A colour font (its glyphs drawn by fpdf2 per document) is added by fpdf2 itself.
    """
    prototype = _prototype(path)
    if prototype.color_font is not None:
        pdf.add_font(family, style, path)
        return
    style = "".join(sorted(style.upper()))
    fontkey = f"{family.lower()}{style}"
    pdf.fonts[fontkey] = _lent(prototype, pdf, fontkey, style, _data(path))
    if prototype.is_cff and prototype.is_cid_keyed:  # as fpdf2's own add_font: CID-keyed CFF needs PDF 1.6
        pdf._set_min_pdf_version("1.6")


def load(path: str) -> None:
    """Parses the font now (the pool's forkserver, a worker's warm-up), so that no document waits for it."""
    _prototype(path)


def loaded() -> list[str]:
    """The font files parsed in this process so far."""
    return list(_PROTOTYPES)


@functools.cache
def _data(path: str) -> bytes:
    return Path(path).read_bytes()


def _prototype(path: str) -> TTFFont:
    if (prototype := _PROTOTYPES.get(path)) is None:
        prototype = _PROTOTYPES[path] = _parsed(path)
    return prototype


def _parsed(path: str) -> TTFFont:
    """The font as fpdf2 parses it, with every table a document may read decompiled; used only to copy from."""
    scratch = FPDF(unit="pt")
    scratch.add_font("prototype", fname=path)
    font = scratch.fonts["prototype"]
    assert isinstance(font, TTFFont)
    font.ttfont.getGlyphOrder()
    for tag in font.ttfont.keys():  # noqa: SIM118 (a TTFont is not iterable)
        if tag not in _NOT_LENT:
            table = font.ttfont[tag]
            if tag == "cmap":  # its subtables are decompiled lazily, one by one
                table.ensureDecompiled()
    font.ttfont.close()  # everything lent is decompiled: the file is not read again
    return font


def _lent(prototype: TTFFont, pdf: FPDF, fontkey: str, style: str, data: bytes) -> TTFFont:
    font = TTFFont.__new__(TTFFont)
    for name in TTFFont.__slots__:
        if name not in _OWN and hasattr(prototype, name):  # fpdf2 leaves some slots unset
            setattr(font, name, getattr(prototype, name))
    font.i, font.fontkey, font.emphasis = len(pdf.fonts) + 1, fontkey, type(prototype.emphasis).coerce(style)
    font.ttfont = _lent_ttfont(prototype.ttfont, data, prototype.collection_font_number)
    font.cw = prototype.cw.copy()  # a defaultdict: reading a width it lacks adds it
    font.desc = copy.copy(prototype.desc)  # becomes one of the document's objects, numbered when written
    font.missing_glyphs, font.biggest_size_pt, font._hbfont, font.color_font = [], 0, None, None
    font.subset = SubsetMap(font)
    return font


def _lent_ttfont(prototype: TTFont, data: bytes, font_number: int) -> TTFont:
    """A fontTools font of its own over the file's bytes, with the prototype's decompiled tables copied in."""
    ttfont = TTFont(io.BytesIO(data), lazy=True, recalcTimestamp=False, fontNumber=font_number)
    for tag, table in prototype.tables.items():
        if tag not in _NOT_LENT:
            ttfont.tables[tag] = _copied(table)
    if "glyf" in ttfont.tables:
        ttfont.tables["glyf"].glyphs = _Glyphs(prototype["glyf"])
    ttfont.glyphOrder = list(prototype.getGlyphOrder())
    ttfont._reverseGlyphOrderDict = prototype.getReverseGlyphMap().copy()
    for tag in _DROPPED | ({"kern"} if "GPOS" in ttfont else set()):
        if tag in ttfont:
            del ttfont[tag]
    return ttfont


def _copied(table: Any) -> Any:
    """The table with its own dicts and lists, and its own copy of each object in a list (cmap subtables)."""
    clone = copy.copy(table)
    for name, value in vars(table).items():
        if isinstance(value, dict):
            setattr(clone, name, value.copy())
        elif isinstance(value, list):  # of glyph names, or of objects (cmap subtables, name records)
            objects = bool(value) and hasattr(value[0], "__dict__")
            setattr(clone, name, [copy.copy(item) for item in value] if objects else list(value))
    return clone


class _Glyphs(dict[str, Any]):
    """A document's glyph outlines: the prototype's, each unpacked (by the prototype's table, which knows the
    glyph ids its components name) before the document sees it. An unpacked glyph is what fontTools writes
    again, unchanged, in any subset; a packed one it would renumber in place for the first document's subset."""

    def __init__(self, table: Any) -> None:
        super().__init__(table.glyphs)
        self.table = table

    def __getitem__(self, name: str) -> Any:
        glyph = super().__getitem__(name)
        glyph.expand(self.table)
        return glyph
