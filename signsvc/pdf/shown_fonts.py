"""A page font as the text-showing operators use it: a string split into character codes, each code's Unicode
(for finding text) and its width (for keeping the glyphs after a removed run in place).

Read: simple fonts (Type1, TrueType) with their /Widths, or the metrics of the 14 standard fonts when a file
gives none, and composite fonts (Type0) with the Identity-H encoding. Anything else (Type3 fonts, whose widths are
in their own glyph space; other CMaps; vertical writing) is `None` from `font_of`: text in it is never edited.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from fpdf.fonts import CORE_FONTS_CHARWIDTHS

# The standard 14 fonts by their PDF name, as fpdf2 names their metrics (widths of WinAnsi codes).
_CORE = {
    "Helvetica": "helvetica",
    "Helvetica-Bold": "helveticaB",
    "Helvetica-Oblique": "helveticaI",
    "Helvetica-BoldOblique": "helveticaBI",
    "Times-Roman": "times",
    "Times-Bold": "timesB",
    "Times-Italic": "timesI",
    "Times-BoldItalic": "timesBI",
    "Courier": "courier",
    "Courier-Bold": "courierB",
    "Courier-Oblique": "courierI",
    "Courier-BoldOblique": "courierBI",
}
_SYMBOLIC = ("Symbol", "ZapfDingbats")  # their codes are no letters: never text to find
_GLYPH_NAMES = {"braceleft": "{", "braceright": "}", "space": " ", "semicolon": ";", "equal": "="}
_HEX = re.compile(rb"<([0-9A-Fa-f\s]*)>")
_MOST_RANGE = 65536


@dataclass
class ShownFont:
    two_bytes: bool  # Identity-H: each code is two bytes (the CID); else one byte
    widths: dict[int, float]  # in thousandths of the font size
    default_width: float
    unicode_map: dict[int, str] = field(default_factory=dict)
    ranges: list[tuple[int, int, int | list[str]]] = field(default_factory=list)  # bfrange: low, high, start
    names: dict[int, str] = field(default_factory=dict)  # /Differences of a simple font without /ToUnicode

    def codes(self, raw: bytes) -> list[int]:
        if not self.two_bytes:
            return list(raw)
        return [int.from_bytes(raw[i : i + 2], "big") for i in range(0, len(raw) - 1, 2)]

    def encoded(self, codes: list[int]) -> bytes:
        return b"".join(code.to_bytes(2 if self.two_bytes else 1, "big") for code in codes)

    def width(self, code: int) -> float:
        return self.widths.get(code, self.default_width)

    def is_space(self, code: int) -> bool:
        """Word spacing (Tw) applies to the single-byte code 32 only."""
        return not self.two_bytes and code == 32

    def unicode(self, code: int) -> str:
        if code in self.unicode_map:
            return self.unicode_map[code]
        for low, high, start in self.ranges:
            if low <= code <= high:
                if isinstance(start, list):
                    return start[code - low] if code - low < len(start) else "\ufffd"
                return chr(start + code - low) if 0 <= start + code - low < 0x110000 else "\ufffd"
        if self.two_bytes:
            return "\ufffd"
        if code in self.names:
            return _GLYPH_NAMES.get(self.names[code], "\ufffd")
        return bytes([code]).decode("cp1252", errors="replace")


def font_of(font: Any) -> ShownFont | None:
    """The font dictionary read for finding and editing text; None when its text cannot be edited safely."""
    subtype = font.get("/Subtype")
    base = str(font.get("/BaseFont", "")).removeprefix("/").split("+")[-1]
    if subtype == "/Type0":
        return _composite(font)
    if subtype not in ("/Type1", "/MMType1", "/TrueType") or base in _SYMBOLIC:
        return None
    widths = _simple_widths(font, base)
    if widths is None:
        return None
    descriptor = _object(font.get("/FontDescriptor"))
    missing = _number(descriptor.get("/MissingWidth")) if descriptor else None
    shown = ShownFont(two_bytes=False, widths=widths, default_width=missing or 0.0)
    _read_to_unicode(font, shown)
    encoding = _object(font.get("/Encoding"))
    if isinstance(encoding, dict):
        shown.names = _differences(encoding.get("/Differences"))
    return shown


def _composite(font: Any) -> ShownFont | None:
    if font.get("/Encoding") != "/Identity-H":
        return None
    descendants = _object(font.get("/DescendantFonts"))
    if not isinstance(descendants, list) or len(descendants) != 1:
        return None
    cid_font = _object(descendants[0])
    default = _number(cid_font.get("/DW"))
    shown = ShownFont(two_bytes=True, widths=_cid_widths(cid_font.get("/W")), default_width=default or 1000.0)
    _read_to_unicode(font, shown)
    return shown


def _simple_widths(font: Any, base: str) -> dict[int, float] | None:
    widths = _object(font.get("/Widths"))
    if isinstance(widths, list):
        first = int(_number(font.get("/FirstChar")) or 0)
        return {first + index: _number(width) or 0.0 for index, width in enumerate(widths[:256])}
    core = CORE_FONTS_CHARWIDTHS.get(_CORE.get(base, ""))
    if core is None:
        return None  # neither widths nor standard metrics: the advance of a glyph is unknown
    return {ord(char): float(width) for char, width in core.items()}


def _cid_widths(raw: Any) -> dict[int, float]:
    """/W: `c [w1 w2 ...]` and `first last w` entries."""
    items = _object(raw)
    widths: dict[int, float] = {}
    if not isinstance(items, list):
        return widths
    items = [_object(item) for item in items]
    index = 0
    while index < len(items) - 1:
        start, following = _number(items[index]), items[index + 1]
        if start is None:
            break
        if isinstance(following, list):
            for offset, width in enumerate(following[:_MOST_RANGE]):
                widths[int(start) + offset] = _number(width) or 0.0
            index += 2
        elif index + 2 < len(items) and (last := _number(following)) is not None:
            for code in range(int(start), min(int(last), int(start) + _MOST_RANGE) + 1):
                widths[code] = _number(items[index + 2]) or 0.0
            index += 3
        else:
            break
    return widths


def _read_to_unicode(font: Any, shown: ShownFont) -> None:
    stream = _object(font.get("/ToUnicode"))
    if stream is None or not hasattr(stream, "get_data"):
        return
    data = stream.get_data()
    for block in re.findall(rb"beginbfchar(.*?)endbfchar", data, re.S):
        values = _HEX.findall(block)
        for source, target in zip(values[::2], values[1::2], strict=False):
            shown.unicode_map[_hex_int(source)] = _utf16(target)
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", data, re.S):
        for low, high, target in re.findall(
            rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(<[0-9A-Fa-f]*>|\[[^\]]*\])", block
        ):
            if target.startswith(b"["):
                start: int | list[str] = [_utf16(value) for value in _HEX.findall(target)]
            else:
                text = _utf16(target[1:-1])
                start = ord(text[-1]) if text else 0
            shown.ranges.append((_hex_int(low), _hex_int(high), start))


def _differences(raw: Any) -> dict[int, str]:
    names: dict[int, str] = {}
    code = 0
    for item in _object(raw) or []:
        item = _object(item)
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            code = int(item)
        elif isinstance(item, str):
            names[code] = item.removeprefix("/")
            code += 1
    return names


def _hex_int(text: bytes) -> int:
    digits = re.sub(rb"\s", b"", text)
    return int(digits, 16) if digits else 0


def _utf16(text: bytes) -> str:
    digits = re.sub(rb"\s", b"", text)
    if len(digits) % 2:
        digits += b"0"
    return bytes.fromhex(digits.decode()).decode("utf-16-be", errors="replace")


def _object(value: Any) -> Any:
    return value.get_object() if hasattr(value, "get_object") else value


def _number(value: Any) -> float | None:
    value = _object(value)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
